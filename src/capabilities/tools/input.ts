import { z } from 'zod';
import { INTERACT_ACTIONS, MODIFIERS, interact, pressKey } from '../../browser/elements.js';
import { typeText } from '../../browser/typing.js';
import { answerOverLimit, FRAME_LEFT, runScript } from '../../browser/script.js';
import { framesDeep } from '../../browser/frames.js';
import { describeSelector, findElement } from '../../browser/selectors.js';
import { fillSecret, submitField } from '../../browser/fill.js';
import { fieldPage, receivingPage } from '../../browser/receiving-page.js';
import { uploadFile } from '../../browser/upload.js';
import { defineTool, asText, shortText } from '../capability.js';
import { secretArgument } from './secrets.js';
import { checked, exactlyOne, fileNameArgument, selector, selectorChoice, waitOf, waitTimeout } from '../schemas.js';
import {
  MAX_LINE_CHARS,
  MAX_SCRIPT_ANSWER_BYTES,
  MAX_SCRIPT_CHARS,
  MAX_TEXT_CHARS,
  MAX_UPLOAD_BASE64_CHARS,
  MAX_UPLOAD_BYTES,
  MAX_URI_CHARS,
  MAX_WORD_CHARS,
} from '../../limits.js';
import { resolveUploadBytes } from '../../files/upload-source.js';
import { typeByExtension } from '../../files/names.js';

export const interactTool = defineTool({
  name: 'interact',
  title: 'Interact',
  description: 'Click, hover, select an option, check… one element.',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  navigates: true,
  summary: (args) => shortText(`${args.action} ${describeStep(args.selector)}`),
  input: z.object({
    action: z.enum(INTERACT_ACTIONS),
    selector,
    option: z.string().max(MAX_LINE_CHARS).optional().describe('for select: text or value'),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    args.action === 'select' && args.option === undefined
      ? 'select needs option: the text or value of the option to choose.'
      : undefined,
  // Nothing but where it left the browser: what was done, and to which element, the caller said.
  output: z.object({}),
  handler: async (args, { driver }) => {
    const interaction =
      args.action === 'select'
        ? { action: args.action, option: checked(args.option, 'option') }
        : { action: args.action };
    await interact(driver, interaction, args.selector, waitOf(args));
    return {};
  },
});

export const write = defineTool({
  name: 'write',
  title: 'Type',
  description: 'Type text or a secret (never shown) into a field, cleared first.',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  // submit presses Enter, which may send a form
  navigates: true,
  summary: (_args, result) => (result.secret ? `typed secret ${asText(result.secret)}` : 'typed'),
  // what the agent typed is input: a draft asks for it as a parameter (a secret stays a reference)
  draft: { input: 'text' },
  input: z.object({
    selector,
    text: z
      .string()
      .max(
        MAX_TEXT_CHARS,
        `text is at most ${MAX_TEXT_CHARS} characters (typed key by key); give a file to a file input with upload_file`,
      )
      // WebDriver reads these code points as keys (U+E007 Enter, U+E004 Tab…), not as text.
      .refine(
        (text) => !/[\uE000-\uE05D]/.test(text),
        'text holds a WebDriver key code point (U+E000 to U+E05D), which would press a key instead of typing it; remove it, and press keys with press_key',
      )
      .optional(),
    secret: secretArgument.optional(),
    clear: z.boolean().optional(),
    submit: z.boolean().optional().describe('press Enter after'),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    exactlyOne(args, ['text', 'secret'])
      ? undefined
      : 'Pass exactly one of text (what to type) or secret ({name, key} from list_secrets, typed by the server).',
  output: z.object({
    value: z
      .string()
      .nullable()
      .describe('the field value read back; null for a password field or a secret, which are never read back'),
    secret: z.object({ name: z.string(), key: z.string() }).optional().describe('the secret that was typed'),
    note: z
      .string()
      .optional()
      .describe('a secret typed into a field that shows it in clear (not a password field): who else can see it'),
  }),
  handler: async (args, { driver, secrets, answerUnread, pageKnown }) => {
    const options = { clear: args.clear ?? true, submit: args.submit ?? false, readBack: !answerUnread };
    if (args.secret) {
      // A secret that is gone fails here, not as a missing field. Then find the field (it may
      // take a wait), and check the page it is on right now, as the browser says it: that is
      // where the value lands.
      await secrets.check(args.secret, await receivingPage(driver));
      const element = await findElement(driver, args.selector, waitOf(args));
      const page = await fieldPage(driver, element);
      let field: string | undefined;
      const outcome = await secrets.type(args.secret, page, async (value) => {
        const filled = await fillSecret(driver, element, value, page, options.clear);
        field = filled.typed ? filled.field : undefined;
        return filled;
      });
      // Enter is one key with no value in it, and only on the page the secret was typed into.
      if (options.submit && outcome.typed && outcome.movedTo === undefined) {
        await submitField(driver, element);
      }
      return {
        value: null,
        secret: { name: args.secret.name, key: args.secret.key },
        ...(field && field !== 'password' ? { note: shownInClear(field) } : {}),
      };
    }
    const typed = await typeText(driver, args.selector, args.text ?? '', { ...options, waitSeconds: waitOf(args) });
    if (typed.page) {
      pageKnown(typed.page);
    }
    return { value: typed.value };
  },
});

/** A step's selector as its report names it; a list of alternatives by the first (its answer's selector_used says which matched). */
function describeStep(given: unknown): string {
  const parsed = selectorChoice.safeParse(given);
  if (!parsed.success) {
    return 'an element';
  }
  const [first] = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
  return first ? describeSelector(first) : 'an element';
}

/**
 * A secret in a field that is not a password field is allowed (a username, an account number
 * are secrets too, and their fields are text), and the answer says what that means.
 */
function shownInClear(field: string): string {
  return `typed into a ${field} field, which shows it in clear on the page: screenshots and prints from this server blank it, but a live view and the page's own scripts see it (prefer a password field for a password)`;
}

export const pressKeyTool = defineTool({
  name: 'press_key',
  title: 'Press a key',
  description: 'Enter, Tab, ArrowDown, a character…',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  navigates: true,
  summary: (_args, result) => shortText(result.pressed),
  secretRefusal:
    'press_key takes no secret: it presses one key and carries no value. Type a secret with write {selector, secret: {name, key}}.',
  input: z.object({
    key: z.string().min(1).max(MAX_WORD_CHARS),
    modifiers: z.array(z.enum(MODIFIERS)).max(4).optional(),
    selector: selector.optional(),
    wait_timeout: waitTimeout,
  }),
  output: z.object({ pressed: z.string() }),
  handler: async (args, { driver }) => {
    const modifiers = args.modifiers ?? [];
    await pressKey(driver, args.key, modifiers, args.selector, waitOf(args));
    return { pressed: [...modifiers, args.key].join('+') };
  },
});

export const uploadFileTool = defineTool({
  name: 'upload_file',
  title: 'Upload a file',
  description: 'Fill a file input from text, content (base64) or file.',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  summary: (_args, result) => shortText(result.uploaded),
  secretRefusal:
    'upload_file does not take a secret, not yet: a secret goes only into a field, with write {selector, secret: {name, key}}.',
  input: z.object({
    selector,
    text: z
      .string()
      .max(MAX_UPLOAD_BYTES, `must be at most ${MAX_UPLOAD_BYTES} characters (the upload limit); upload a smaller file`)
      .optional(),
    content: z
      .base64()
      .max(
        MAX_UPLOAD_BASE64_CHARS,
        `must decode to at most ${MAX_UPLOAD_BYTES} bytes (the upload limit); upload a smaller file`,
      )
      .optional(),
    file: z.string().min(1).max(MAX_URI_CHARS).optional().describe('a workspace://files… uri'),
    // No mime_type: the file's type follows its extension, as a browser types a file a person picks.
    filename: fileNameArgument.optional().describe('as the page sees it (sets the type)'),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    exactlyOne(args, ['text', 'content', 'file'])
      ? undefined
      : 'Pass exactly one of text, content (base64) or file (a workspace://files… URI).',
  output: z.object({ uploaded: z.string().describe('the file name the page received'), bytes: z.number() }),
  handler: async (args, { driver, files }) => {
    const file = await resolveUploadBytes(args, (uri) => files.readUri(uri));
    await uploadFile(driver, args.selector, { ...file, type: typeByExtension(file.name) }, waitOf(args));
    return { uploaded: file.name, bytes: file.bytes.byteLength };
  },
});

export const executeScript = defineTool({
  name: 'execute_script',
  title: 'Run JavaScript',
  description: 'Run a JavaScript function body in the page; return a value.',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  navigates: true,
  summary: (_args, result) => shortText(result.result ?? 'done'),
  secretRefusal:
    'execute_script takes no secret: a script can send what it is given anywhere, so a secret there would be an exfiltration API. Type the secret into its field with write {selector, secret: {name, key}}.',
  input: z.object({
    script: z.string().min(1).max(MAX_SCRIPT_CHARS),
    args: z.array(z.unknown()).max(32).optional(),
  }),
  output: z.object({
    result: z.unknown().describe("the script's return value, as JSON; null when its frame went away under it"),
  }),
  handler: async (args, { driver, frames }) => {
    // A browser whose frames nobody tracks (a stateless caller's) is asked where it runs.
    const deep = frames ?? (await framesDeep(driver));
    const value = await runScript(driver, args.script, args.args ?? [], { limited: true, framesDeep: deep });
    // Its frame took the answer: the call path says the frame is gone, from the top page.
    return { result: value === FRAME_LEFT ? null : withinAnswerLimit(value) };
  },
});

/** The page let the answer through by its length; what reaches the caller is bounded in bytes. */
function withinAnswerLimit(result: unknown): unknown {
  if (Buffer.byteLength(JSON.stringify(result) ?? '') > MAX_SCRIPT_ANSWER_BYTES) {
    throw answerOverLimit();
  }
  return result;
}

export default [interactTool, write, pressKeyTool, uploadFileTool, executeScript];
