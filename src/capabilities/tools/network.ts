import { z } from 'zod';
import { TRUNCATION_MARK } from '../../browser/reading.js';
import { matchProblem, type CapturedBody } from '../../live/monitor/capture.js';
import { isRequestType, REQUEST_TYPES } from '../../live/monitor/network-log.js';
import { CARRIED } from '../../secrets/secret-call.js';
import { signedLink } from '../../files/answers.js';
import { defineTool } from '../capability.js';
import type { SecretsAccess, WorkspaceToolContext } from '../context.js';
import { maxChars } from '../schemas.js';

const WITHHELD = { withheld: true as const, withheld_reason: CARRIED };
const DEFAULT_BODY_CHARS = 20_000;

const match = z.string().max(1000).describe('URL glob, e.g. "*/api/*"');

const entry = z.object({
  id: z.string().describe('pass it to network_body'),
  method: z.string(),
  url: z.string().describe('only the origin when withheld'),
  status: z.number().nullable().describe('null: the request failed before any response'),
  type: z.string().describe('document, script, style, image, font, fetch, xhr, … or other'),
  mime_type: z.string().nullable(),
  duration_ms: z.number().nullable(),
  size: z.number().nullable().describe('response body bytes, as the browser decoded them'),
  body: z.boolean().describe('network_body can answer this response body'),
  failed: z.string().optional().describe("the browser's reason (net::ERR_…)"),
  withheld: z.literal(true).optional().describe('its URL carried a secret typed into this browser'),
});

export const captureNetwork = defineTool({
  name: 'capture_network',
  title: 'Capture network',
  description: "Record the browser's requests; workspace_network lists them.",
  kind: 'act',
  destructive: false,
  attach: 'none',
  runnableInFlow: true,
  // Turning capture on while a person holds the browser would record what they do (the forms
  // they send, the pages they load): nothing new starts then. Stopping records nothing.
  answersUnderControl: (args) => args.on === false,
  input: z.object({
    on: z.boolean().describe('false stops; the list stays'),
    match: match.optional(),
  }),
  check: (args) => (args.match === undefined ? undefined : matchProblem(args.match)),
  output: z.object({
    capturing: z.boolean(),
    match: z.string().nullable(),
    since: z.string().nullable().describe('when this capture began (ISO 8601)'),
  }),
  summary: (args) => (args.on ? `capture on${args.match ? ` (${args.match})` : ''}` : 'capture off'),
  handler: async (args, { network }) => network.capture(args.on, args.match),
});

export const workspaceNetwork = defineTool({
  name: 'workspace_network',
  title: 'Network requests',
  description: 'Mirror of workspace://network.',
  kind: 'read',
  attach: 'none',
  runnableInFlow: false,
  mirrors: {
    uri: 'workspace://network',
    name: 'network',
    title: 'Captured network requests',
    description:
      'The requests the browser made while capture_network was on: id, method, url, status, type, duration, size, whether network_body can read the body. Oldest first; dropped counts what the limit let go.',
  },
  answersUnderControl: true,
  takesTurn: false,
  http: { method: 'GET', path: '/workspace/network' },
  input: z.object({
    match: match.optional(),
    // A refinement, not an enum: the list would cost tools/list its byte budget; the refusal names it.
    type: z
      .string()
      .max(40)
      .refine(isRequestType, `must be one of ${REQUEST_TYPES.join(', ')}; pass one of them, or no type`)
      .optional()
      .describe('document, xhr, fetch, script…'),
    status: z
      .string()
      .max(6)
      .regex(/^([1-5]\d\d|[1-5]xx|failed)$/, 'must be a status such as 404, a class such as 4xx, or failed')
      .optional()
      .describe('404, 4xx, or failed'),
  }),
  check: (args) => (args.match === undefined ? undefined : matchProblem(args.match)),
  output: z.object({
    capturing: z.boolean(),
    match: z.string().nullable().describe('what capture keeps'),
    count: z.number(),
    requests: z.array(entry),
    dropped: z.number().describe('oldest requests dropped to keep the limit'),
    stopped: z
      .string()
      .optional()
      .describe('why capture stopped unasked (its browser ended, or its BiDi failed), and what to do'),
  }),
  handler: async (args, { network }) => {
    const listing = await network.list(args);
    return { ...listing, count: listing.requests.length };
  },
});

export const networkBody = defineTool({
  name: 'network_body',
  title: 'Response body',
  description: "A captured response's body: text, or a binary saved to Files.",
  kind: 'read',
  // a binary body is written to Files
  readOnly: false,
  attach: 'none',
  runnableInFlow: true,
  answersUnderControl: true,
  takesTurn: false,
  input: z.object({
    request: z.string().min(1).max(200).describe('id from workspace_network'),
    max_chars: maxChars(DEFAULT_BODY_CHARS),
  }),
  output: z.object({
    request: z.string(),
    url: z.string(),
    status: z.number().nullable(),
    mime_type: z.string().nullable(),
    size: z.number().describe('bytes'),
    text: z.string().optional().describe('a text body (JSON pretty-printed)'),
    json: z.literal(true).optional().describe('the text is JSON, pretty-printed'),
    truncated: z.literal(true).optional(),
    file: z
      .object({ uri: z.string(), name: z.string(), url: signedLink })
      .optional()
      .describe('a binary body, saved in Files'),
  }),
  handler: async (args, { network, files, secrets }) =>
    answerBody(await network.body(args.request), args.max_chars ?? DEFAULT_BODY_CHARS, files, secrets),
});

const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded)\b)/;

async function answerBody(
  body: CapturedBody,
  maxChars: number,
  files: WorkspaceToolContext['files'],
  secrets: SecretsAccess,
) {
  const { entry } = body;
  const mime = entry.mime_type;
  const text = body.text ?? (mime && TEXT_TYPES.test(mime) ? body.bytes?.toString('utf8') : undefined);
  const size = body.bytes?.length ?? Buffer.byteLength(text ?? '', 'utf8');
  const head = { request: entry.id, url: entry.url, status: entry.status, mime_type: mime, size };
  if (text !== undefined) {
    if (secrets.carries(text)) {
      return { ...head, text: '', ...WITHHELD };
    }
    const json = mime !== null && /json/.test(mime) ? prettyJson(text) : undefined;
    const shown = json ?? text;
    const cut = shown.length > maxChars;
    return {
      ...head,
      text: cut ? shown.slice(0, maxChars) + TRUNCATION_MARK : shown,
      ...(json === undefined ? {} : { json: true as const }),
      ...(cut ? { truncated: true as const } : {}),
    };
  }
  const bytes = body.bytes ?? Buffer.alloc(0);
  if (secrets.carries(bytes.toString('latin1')) || secrets.carries(bytes.toString('utf8'))) {
    return { ...head, ...WITHHELD };
  }
  const saved = await files.saveBody(`response-${entry.id.replace(/[^\w.-]/g, '-')}${extensionOf(mime)}`, bytes);
  return saved ? { ...head, file: { uri: saved.uri, name: saved.name, url: saved.url } } : head;
}

function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'application/pdf': '.pdf',
  'application/zip': '.zip',
};

function extensionOf(mime: string | null): string {
  return (mime && EXTENSIONS[mime.split(';')[0]?.trim() ?? '']) || '.bin';
}

export default [captureNetwork, workspaceNetwork, networkBody];
