import { z } from 'zod';
import { takeScreenshot, printPdf, withSecretsMasked } from '../browser/capture.js';
import { answerDialog, resizeWindow, switchFrame } from '../browser/context.js';
import { INTERACT_ACTIONS, MODIFIERS, interact, pressKey, typeText } from '../browser/elements.js';
import { moveThroughHistory, navigateTo } from '../browser/navigation.js';
import { readPageState } from '../browser/page-state.js';
import { extract } from '../browser/reading.js';
import { outline } from '../browser/outline.js';
import { runScript, waitForCondition } from '../browser/script.js';
import { DEFAULT_WAIT_SECONDS, describeSelector, findElement } from '../browser/selectors.js';
import { fillSecret, receivingPage } from '../browser/fill.js';
import { Key } from 'selenium-webdriver';
import { uploadFile } from '../browser/upload.js';
import { defineTool, type SecretsAccess } from './define.js';
import { CARRIED, SHOWN_ELSEWHERE } from '../secrets/binding.js';
import { secretArgument } from './secret-tools.js';
import { maxChars, selector, waitTimeout, webUrl } from './schemas.js';
import { BadRequest } from '../errors.js';
import { isFileName, FILE_NAME_RULE } from '../files/names.js';
import {
  MAX_LINE_CHARS,
  MAX_PROMPT_CHARS,
  MAX_SCRIPT_ANSWER_BYTES,
  MAX_SCRIPT_CHARS,
  MAX_TEXT_CHARS,
  MAX_UPLOAD_BASE64_CHARS,
  MAX_UPLOAD_BYTES,
  MAX_URI_CHARS,
  MAX_WORD_CHARS,
} from '../limits.js';
import { resolveUploadBytes } from '../files/upload-source.js';

/** A reader that blanked what carried a secret before cutting its text says so, as the call path would. */
const WITHHELD = { withheld: true as const, withheld_reason: CARRIED };
/** Captures mask the fields of a browser a secret was typed into (and nothing else pays for it). */
const masking = (secrets: SecretsAccess) => (secrets.typedHere() ? (text: string) => secrets.carries(text) : undefined);
const waitOf = (args: { wait_timeout?: number }) => args.wait_timeout ?? DEFAULT_WAIT_SECONDS;
const exactlyOne = (args: Record<string, unknown>, names: string[]) =>
  names.filter((n) => args[n] !== undefined).length === 1;
const windowSide = z.number().int().min(200).max(7680);
/** One rule for every name a file gets, so a name saved can always be listed, fetched and linked. */
const fileNameArgument = z.string().min(1).max(255).refine(isFileName, FILE_NAME_RULE);
const savedName = (extension: string) =>
  fileNameArgument.optional().describe(`save as (${extension} added; default: dated); a clash becomes "name (1)"`);
const savedFile = z.object({
  uri: z.string().optional().describe('the saved file: read it, keep_file it, or upload_file it by this uri'),
  name: z.string().optional().describe('the name it was saved under'),
  url: z.string().optional().describe('a signed link that opens it without the bearer token, until it expires'),
});

export const navigate = defineTool({
  name: 'navigate',
  title: 'Navigate',
  description: 'Open url, or go back, forward or refresh (action). Answers where the browser is now.',
  kind: 'act',
  browser: 'open',
  runnableInFlow: true,
  secretRefusal:
    'navigate takes no secret: a secret in a URL lands in browser history, referrers, server logs and the workspace record. Open the page, then type the secret into its field with write {selector, secret: {name, key}}.',
  input: z.object({
    url: webUrl.optional().describe('http(s)'),
    action: z.enum(['back', 'forward', 'refresh']).optional(),
  }),
  check: (args) =>
    exactlyOne(args, ['url', 'action'])
      ? undefined
      : 'Pass exactly one of url (a page to open) or action (back, forward or refresh).',
  output: z.object({}),
  handler: async (args, { driver }) => {
    if (args.url !== undefined) {
      await navigateTo(driver, args.url);
    } else if (args.action !== undefined) {
      await moveThroughHistory(driver, args.action);
    }
    return {};
  },
});

export const interactTool = defineTool({
  name: 'interact',
  title: 'Interact with an element',
  description:
    'Act on one element: click, double_click, right_click, hover, select (an option), check, uncheck, clear, focus, scroll_into_view.',
  kind: 'act',
  browser: 'open',
  runnableInFlow: true,
  input: z.object({
    action: z.enum(INTERACT_ACTIONS),
    selector,
    option: z.string().max(MAX_LINE_CHARS).optional().describe('for select: option text or value'),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    args.action === 'select' && args.option === undefined
      ? 'select needs option: the text or value of the option to choose.'
      : undefined,
  output: z.object({ done: z.string().describe('what was done, to which element') }),
  handler: async (args, { driver }) => {
    await interact(driver, args.action, args.selector, waitOf(args), args.option);
    return { done: `${args.action} ${describeSelector(args.selector)}` };
  },
});

export const write = defineTool({
  name: 'write',
  title: 'Type into a field',
  description:
    'Type text into a field, cleared first. Answers the value read back (null for a password). With secret {name, key} instead of text, the server types a secret (see list_secrets) that you never see.',
  kind: 'act',
  browser: 'open',
  runnableInFlow: true,
  input: z.object({
    selector,
    text: z
      .string()
      .max(
        MAX_TEXT_CHARS,
        `text is at most ${MAX_TEXT_CHARS} characters (typed key by key); give a file to a file input with upload_file`,
      )
      .optional()
      .describe('what to type'),
    secret: secretArgument.optional(),
    clear: z.boolean().optional().describe('default true'),
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
  handler: async (args, { driver, secrets, answerUnread }) => {
    const options = { clear: args.clear ?? true, submit: args.submit ?? false, readBack: !answerUnread };
    if (args.secret) {
      // A secret that is gone fails here, not as a missing field. Then find the field (it may
      // take a wait), and check the page it is on right now: that is where the keystrokes land.
      await secrets.check(args.secret, await receivingPage(driver));
      const element = await findElement(driver, args.selector, waitOf(args));
      const page = await receivingPage(driver);
      let field: string | undefined;
      const outcome = await secrets.type(args.secret, page, async (value) => {
        const filled = await fillSecret(driver, element, value, page, options.clear);
        field = filled.typed ? filled.field : undefined;
        return filled;
      });
      // Enter is one key with no value in it, and only on the page the secret was typed into.
      if (options.submit && outcome.typed && outcome.movedTo === undefined) {
        await element.sendKeys(Key.ENTER);
      }
      return {
        value: null,
        secret: { name: args.secret.name, key: args.secret.key },
        ...(field && field !== 'password' ? { note: shownInClear(field) } : {}),
      };
    }
    const typed = await typeText(driver, args.selector, args.text ?? '', { ...options, waitSeconds: waitOf(args) });
    return { value: typed.value, ...typed.page };
  },
});

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
  description:
    'Press a W3C key (Enter, Tab, Escape, ArrowDown, Backspace… or one character) on the focused element, or on selector.',
  kind: 'act',
  browser: 'open',
  runnableInFlow: true,
  secretRefusal:
    'press_key takes no secret: it presses one key and carries no value. Type a secret with write {selector, secret: {name, key}}.',
  input: z.object({
    key: z.string().min(1).max(MAX_WORD_CHARS),
    modifiers: z.array(z.enum(MODIFIERS)).max(4).optional().describe('held down meanwhile'),
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

export const frame = defineTool({
  name: 'frame',
  title: 'Switch frame',
  description: 'Enter an iframe (action enter with its selector), or leave to the parent frame or the top page.',
  kind: 'act',
  destructive: false,
  browser: 'open',
  runnableInFlow: true,
  input: z.object({
    action: z.enum(['enter', 'parent', 'top']),
    selector: selector.optional(),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    args.action === 'enter' && !args.selector
      ? 'frame enter needs selector: the iframe to enter, e.g. {"css": "iframe"}.'
      : undefined,
  output: z.object({ frame: z.enum(['enter', 'parent', 'top']) }),
  handler: async (args, { driver }) => {
    await switchFrame(driver, args.action, args.selector, waitOf(args));
    return { frame: args.action };
  },
});

export const dialog = defineTool({
  name: 'dialog',
  title: 'Answer a dialog',
  description:
    'Accept or dismiss the open alert, confirm or prompt (text answers a prompt). Waits briefly for one a click opened.',
  kind: 'act',
  browser: 'existing',
  runnableInFlow: true,
  input: z.object({
    action: z.enum(['accept', 'dismiss']),
    text: z.string().max(MAX_PROMPT_CHARS).optional().describe('the answer to a prompt'),
  }),
  output: z.object({ message: z.string().describe("the dialog's message"), answered: z.enum(['accept', 'dismiss']) }),
  handler: async (args, { driver }) => {
    const message = await answerDialog(driver, args.action, args.text);
    return { message, answered: args.action };
  },
});

export const resize = defineTool({
  name: 'resize',
  title: 'Resize the window',
  description: 'Set the browser window size in CSS pixels.',
  kind: 'act',
  destructive: false,
  browser: 'open',
  runnableInFlow: true,
  input: z.object({ width: windowSide, height: windowSide }),
  output: z.object({ width: z.number(), height: z.number() }),
  handler: async (args, { driver }) => {
    await resizeWindow(driver, args.width, args.height);
    const rect = await driver.manage().window().getRect();
    return { width: rect.width, height: rect.height };
  },
});

export const uploadFileTool = defineTool({
  name: 'upload_file',
  title: 'Set a file input',
  description:
    "Put a file into an <input type=file>, from exactly one of text, content (base64) or file (a file, screenshot or download of this workspace, by its URI). filename defaults to upload.txt or the file's name.",
  kind: 'act',
  browser: 'open',
  runnableInFlow: true,
  secretRefusal:
    'upload_file does not take a secret, not yet: a secret goes only into a field, with write {selector, secret: {name, key}}.',
  input: z.object({
    selector,
    text: z
      .string()
      .max(MAX_UPLOAD_BYTES, `text is at most ${MAX_UPLOAD_BYTES} characters (the upload limit)`)
      .optional()
      .describe('file content as text'),
    content: z
      .base64()
      .max(MAX_UPLOAD_BASE64_CHARS, `content is at most ${MAX_UPLOAD_BYTES} bytes (the upload limit)`)
      .optional(),
    file: z
      .string()
      .min(1)
      .max(MAX_URI_CHARS)
      .optional()
      .describe("a workspace://files… URI of this workspace's Files, screenshots or downloads"),
    filename: fileNameArgument.optional().describe('the name the page sees'),
    mime_type: z.string().max(MAX_WORD_CHARS).optional(),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    exactlyOne(args, ['text', 'content', 'file'])
      ? undefined
      : 'Pass exactly one of text, content (base64) or file (a workspace://files… URI).',
  output: z.object({ uploaded: z.string().describe('the file name the page received'), bytes: z.number() }),
  handler: async (args, { driver, files }) => {
    const file = await resolveUploadBytes(args, (uri) => files.readUri(uri));
    await uploadFile(driver, args.selector, file, waitOf(args));
    return { uploaded: file.name, bytes: file.bytes.byteLength };
  },
});

export const executeScript = defineTool({
  name: 'execute_script',
  title: 'Run JavaScript',
  description:
    'Run JavaScript in the page as a function body (use return to answer a value; arguments[i] are args). Answers the JSON result.',
  kind: 'act',
  browser: 'open',
  runnableInFlow: true,
  secretRefusal:
    'execute_script takes no secret: a script can send what it is given anywhere, so a secret there would be an exfiltration API. Type the secret into its field with write {selector, secret: {name, key}}.',
  input: z.object({
    script: z.string().min(1).max(MAX_SCRIPT_CHARS, `a script is at most ${MAX_SCRIPT_CHARS} characters`),
    args: z.array(z.unknown()).max(32).optional(),
  }),
  output: z.object({ result: z.unknown().describe("the script's return value, as JSON") }),
  handler: async (args, { driver }) => ({
    result: withinAnswerLimit(await runScript(driver, args.script, args.args ?? [])),
  }),
});

/**
 * An answer past the limit is refused rather than cut: a cut JSON value is no value, and the
 * script can always return less. The whole value has already crossed from the browser by then,
 * which chromedriver bounds; what is bounded here is what reaches the caller and the model.
 */
function withinAnswerLimit(result: unknown): unknown {
  // A lower bound first, which stops as soon as it passes the limit: serialising a 50 MB answer
  // only to measure it held the event loop again.
  const over = atLeastChars(result, MAX_SCRIPT_ANSWER_BYTES) > MAX_SCRIPT_ANSWER_BYTES;
  if (over || Buffer.byteLength(JSON.stringify(result) ?? '') > MAX_SCRIPT_ANSWER_BYTES) {
    throw new BadRequest(
      `The script's answer is over the ${MAX_SCRIPT_ANSWER_BYTES}-byte limit of execute_script (as JSON); return less (a slice, a count, or only the fields you need).`,
    );
  }
  return result;
}

/** Characters the value's JSON has at least (strings and keys), counted until past `limit`. */
function atLeastChars(value: unknown, limit: number): number {
  let chars = 0;
  const stack = [value];
  while (stack.length > 0 && chars <= limit) {
    const item = stack.pop();
    if (typeof item === 'string') {
      chars += item.length + 2;
    } else if (Array.isArray(item)) {
      chars += item.length + 1;
      // Past the limit already: do not walk (a spread of millions of elements would overflow).
      for (let i = 0; i < item.length && chars <= limit; i++) {
        stack.push(item[i]);
      }
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        chars += key.length + 3;
        stack.push(child);
      }
    } else {
      chars += 1;
    }
  }
  return chars;
}

export const extractTool = defineTool({
  name: 'extract',
  title: 'Read from the page',
  description:
    'Read the text (or html, value, an attribute) of the first match of selector, of every match with all, or of the page. With url, goes there first unless already on it.',
  kind: 'read',
  // url navigates first
  readOnly: false,
  browser: 'existing',
  runnableInFlow: true,
  input: z.object({
    selector: selector.optional(),
    what: z.enum(['text', 'html', 'value', 'attribute']).optional().describe('default text'),
    attribute: z.string().min(1).max(MAX_WORD_CHARS).optional().describe('for what: attribute'),
    all: z.boolean().optional().describe('every match'),
    max_chars: maxChars(4000),
    url: webUrl.optional(),
    wait_timeout: waitTimeout,
  }),
  check: (args) =>
    args.what === 'attribute' && !args.attribute
      ? 'what "attribute" needs attribute: the name to read, e.g. "href".'
      : undefined,
  output: z.object({
    value: z.string().nullable().optional().describe('the first match (without all)'),
    values: z.array(z.string().nullable()).optional().describe('every match (with all)'),
    truncated: z.boolean().optional(),
  }),
  handler: async (args, { driver, secrets }) => {
    if (args.url !== undefined && (await driver.getCurrentUrl()) !== args.url) {
      await navigateTo(driver, args.url);
    }
    const read = await extract(driver, {
      selector: args.selector,
      what: args.what ?? 'text',
      attribute: args.attribute,
      all: args.all ?? false,
      maxChars: args.max_chars ?? 4000,
      waitSeconds: waitOf(args),
      carriesSecret: (text) => secrets.carries(text),
    });
    const truncated = { ...(read.truncated ? { truncated: true } : {}), ...(read.withheld ? WITHHELD : {}) };
    return args.all ? { values: read.values, ...truncated } : { value: read.values[0] ?? null, ...truncated };
  },
});

export const outlineTool = defineTool({
  name: 'outline',
  title: 'Outline the page',
  description:
    'A compact map of the page (or of selector): headings, landmarks, forms and fields, buttons and links, each with a working selector. The cheap way to find selectors.',
  kind: 'read',
  browser: 'existing',
  runnableInFlow: true,
  input: z.object({ selector: selector.optional(), max_chars: maxChars(10000) }),
  output: z.object({ url: z.string(), title: z.string(), outline: z.string(), truncated: z.boolean().optional() }),
  handler: async (args, { driver, secrets }) => {
    const [state, map] = await Promise.all([
      readPageState(driver),
      outline(driver, args.selector, args.max_chars ?? 10000, (text) => secrets.carries(text)),
    ]);
    return {
      url: state.url,
      title: state.title,
      outline: map.outline,
      ...(map.truncated ? { truncated: true } : {}),
      ...(map.withheld ? WITHHELD : {}),
    };
  },
});

export const screenshot = defineTool({
  name: 'screenshot',
  title: 'Take a screenshot',
  description:
    'A PNG of the viewport, the full page (full_page) or one element (selector). save keeps it and answers its uri.',
  kind: 'read',
  // save keeps a file in the workspace
  readOnly: false,
  browser: 'existing',
  runnableInFlow: true,
  input: z.object({
    selector: selector.optional(),
    full_page: z.boolean().optional(),
    width: z.number().int().min(100).max(4000).optional().describe('scale down to this width'),
    wait_timeout: waitTimeout,
    save: z.boolean().optional().describe('keep it in workspace://files/screenshots'),
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
  description: "The page as a PDF, saved in the workspace's Files (workspace://files); answers its uri and a link.",
  kind: 'read',
  // saves a PDF in Files
  readOnly: false,
  browser: 'existing',
  runnableInFlow: true,
  input: z.object({
    filename: savedName('.pdf'),
    landscape: z.boolean().optional(),
    background: z.boolean().optional(),
  }),
  output: z.object({ mime_type: z.literal('application/pdf'), bytes: z.number(), ...savedFile.shape }),
  handler: async (args, { driver, files, secrets }) => {
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

export const assertTool = defineTool({
  name: 'assert',
  title: 'Assert a condition',
  description:
    'Pass when, within timeout, a script returns true or selector is in state (for stable_for ms, if given); else fail with message.',
  kind: 'read',
  // a script condition is any JavaScript, which can change the page
  readOnly: false,
  browser: 'existing',
  runnableInFlow: true,
  input: z.object({
    script: z.string().min(1).max(MAX_SCRIPT_CHARS).optional().describe('JavaScript returning true when it holds'),
    selector: selector.optional(),
    state: z.enum(['present', 'absent', 'visible', 'hidden']).optional().describe('with selector (default present)'),
    timeout: z.number().min(0).max(120).optional().describe('seconds (default 5)'),
    stable_for: z.number().int().min(0).max(60_000).optional().describe('ms it must hold'),
    message: z.string().min(1).max(MAX_LINE_CHARS).describe('what failed, in your words'),
  }),
  check: (args) =>
    exactlyOne(args, ['script', 'selector']) ? undefined : 'Pass exactly one of script or selector (with state).',
  output: z.object({ passed: z.literal(true), waited_ms: z.number() }),
  handler: async (args, { driver }) => {
    const condition = args.selector
      ? { selector: args.selector, state: args.state ?? 'present' }
      : { script: args.script ?? '' };
    const waited = await waitForCondition(driver, condition, args.timeout ?? 5, args.stable_for ?? 0, args.message);
    return { passed: true as const, waited_ms: waited };
  },
});
