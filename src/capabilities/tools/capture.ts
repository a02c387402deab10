import { z } from 'zod';
import { takeScreenshot, printPdf, withSecretsMasked } from '../../browser/capture.js';
import { signedLink } from '../../files/answers.js';
import { defineTool } from '../capability.js';
import type { SecretsAccess } from '../context.js';
import { SHOWN_ELSEWHERE } from '../../secrets/secret-call.js';
import { fileNameArgument, selector, waitOf, waitTimeout } from '../schemas.js';

/** Captures mask the fields of a browser a secret was typed into (and nothing else pays for it). */
const masking = (secrets: SecretsAccess) => (secrets.typedHere() ? (text: string) => secrets.carries(text) : undefined);
const savedName = (extension: string) => fileNameArgument.optional().describe(`name to save as (${extension} added)`);
const savedFile = z.object({
  uri: z.string().optional().describe('the saved file: read it, keep_file it, or upload_file it by this uri'),
  name: z.string().optional().describe('the name it was saved under'),
  url: signedLink,
});

export const screenshot = defineTool({
  name: 'screenshot',
  title: 'Screenshot',
  description: 'PNG of the viewport, full_page or an element; save keeps it.',
  kind: 'read',
  // save keeps a file in the workspace
  readOnly: false,
  attach: 'existing',
  runnableInFlow: true,
  // a width or a full page resizes the person's window for the capture
  answersUnderControl: (args) => args.width === undefined && args.full_page !== true,
  input: z.object({
    selector: selector.optional(),
    full_page: z.boolean().optional(),
    width: z.number().int().min(100).max(4000).optional().describe('px, scaled down'),
    wait_timeout: waitTimeout,
    save: z.boolean().optional(),
    filename: savedName('.png'),
  }),
  check: (args) =>
    args.selector && args.full_page
      ? 'Pass selector (one element) or full_page (the whole page), not both.'
      : args.filename !== undefined && args.save !== true
        ? 'filename names a saved screenshot: pass save: true with it, or drop filename.'
        : undefined,
  output: z.object({
    mime_type: z.literal('image/png'),
    bytes: z.number(),
    data: z.string().optional().describe('the PNG, base64 (over MCP it is the image block instead)'),
    ...savedFile.shape,
  }),
  image: (result) => (result.data ? { data: result.data, mimeType: result.mime_type } : undefined),
  handler: async (args, { driver, browserName, files, secrets }) => {
    if (args.save) {
      files.ensureSaving();
    }
    const data = await withSecretsMasked(driver, masking(secrets), () =>
      takeScreenshot(driver, browserName, {
        selector: args.selector,
        fullPage: args.full_page ?? false,
        width: args.width,
        waitSeconds: waitOf(args),
      }),
    );
    if (data === undefined) {
      return { mime_type: 'image/png' as const, bytes: 0, withheld: true, withheld_reason: SHOWN_ELSEWHERE };
    }
    const png = Buffer.from(data, 'base64');
    const saved = args.save ? await files.saveScreenshot(args.filename, png) : undefined;
    return {
      mime_type: 'image/png' as const,
      bytes: png.byteLength,
      data,
      ...(saved ? { uri: saved.uri, name: saved.name, url: saved.url } : {}),
    };
  },
});

export const print = defineTool({
  name: 'print',
  title: 'Print to PDF',
  description: 'The page as a PDF, saved in Files.',
  kind: 'read',
  // saves a PDF in Files
  readOnly: false,
  attach: 'existing',
  runnableInFlow: true,
  answersUnderControl: true,
  input: z.object({
    filename: savedName('.pdf'),
    landscape: z.boolean().optional(),
    background: z.boolean().optional(),
  }),
  output: z.object({ mime_type: z.literal('application/pdf'), bytes: z.number(), ...savedFile.shape }),
  handler: async (args, { driver, files, secrets }) => {
    files.ensureSaving();
    const data = await withSecretsMasked(driver, masking(secrets), () =>
      printPdf(driver, { landscape: args.landscape ?? false, background: args.background ?? false }),
    );
    if (data === undefined) {
      return { mime_type: 'application/pdf' as const, bytes: 0, withheld: true, withheld_reason: SHOWN_ELSEWHERE };
    }
    const pdf = Buffer.from(data, 'base64');
    const saved = await files.savePrint(args.filename, pdf);
    return {
      mime_type: 'application/pdf' as const,
      bytes: pdf.byteLength,
      uri: saved.uri,
      name: saved.name,
      url: saved.url,
    };
  },
});

export default [screenshot, print];
