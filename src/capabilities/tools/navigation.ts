import { z } from 'zod';
import { answerDialog, resizeWindow, switchFrame } from '../../browser/context.js';
import { moveThroughHistory, navigateTo } from '../../browser/navigation.js';
import { defineTool, asText, shortText } from '../capability.js';
import { checked, exactlyOne, selector, waitOf, waitTimeout, webUrl, windowHeight, windowWidth } from '../schemas.js';
import { MAX_PROMPT_CHARS } from '../../limits.js';

export const navigate = defineTool({
  name: 'navigate',
  title: 'Navigate',
  description: 'Open url, or go back, forward or refresh.',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  navigates: true,
  inEnteredFrame: false,
  // A history move says which it was, wherever it led; an opened page names where it landed (the
  // page read), or the address it was sent to when the page went unread.
  summary: (args, result) => {
    if (args.action !== undefined) {
      return args.action === 'refresh' ? 'refreshed' : `went ${asText(args.action)}`;
    }
    return `went to ${asText((result as { url?: string }).url ?? args.url ?? '')}`;
  },
  secretRefusal:
    'navigate takes no secret: a secret in a URL lands in browser history, referrers, server logs and the workspace record. Open the page, then type the secret into its field with write {selector, secret: {name, key}}.',
  input: z.object({
    url: webUrl.optional(),
    action: z.enum(['back', 'forward', 'refresh']).optional(),
  }),
  check: (args) =>
    exactlyOne(args, ['url', 'action'])
      ? undefined
      : 'Pass exactly one of url (a page to open) or action (back, forward or refresh).',
  output: z.object({}),
  handler: async (args, { driver, pageKnown, remember }) => {
    if (args.url !== undefined) {
      pageKnown(await navigateTo(driver, args.url));
    } else if (args.action !== undefined) {
      pageKnown(await moveThroughHistory(driver, args.action));
    }
    // WebDriver runs the commands after a navigation on the top page.
    remember({ frames: 0 });
    return {};
  },
});

export const frame = defineTool({
  name: 'frame',
  title: 'Frame',
  description: 'Enter an iframe, or go to the parent or top.',
  kind: 'act',
  destructive: false,
  attach: 'open',
  runnableInFlow: true,
  inEnteredFrame: false,
  summary: (_args, result) => shortText(result.frame),
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
  handler: async (args, { driver, remember }) => {
    const target = args.action === 'enter' ? checked(args.selector, 'selector') : args.action;
    remember({ frames: await switchFrame(driver, target, waitOf(args)) });
    return { frame: args.action };
  },
});

export const dialog = defineTool({
  name: 'dialog',
  title: 'Dialog',
  description: 'Accept or dismiss the open alert, confirm or prompt.',
  kind: 'act',
  attach: 'existing',
  runnableInFlow: true,
  // answering the dialog is what this tool is for; accepting a confirm may submit a form
  blockedByDialog: false,
  navigates: true,
  summary: (_args, result) => shortText(result.message),
  input: z.object({
    action: z.enum(['accept', 'dismiss']),
    text: z.string().max(MAX_PROMPT_CHARS).optional().describe('for a prompt'),
  }),
  output: z.object({ message: z.string().describe("the dialog's message"), answered: z.enum(['accept', 'dismiss']) }),
  handler: async (args, { driver }) => {
    const message = await answerDialog(driver, args.action, args.text);
    return { message, answered: args.action };
  },
});

export const resize = defineTool({
  name: 'resize',
  title: 'Resize',
  description: 'Set the window size (CSS pixels).',
  kind: 'act',
  destructive: false,
  attach: 'open',
  runnableInFlow: true,
  input: z.object({ width: windowWidth, height: windowHeight }),
  output: z.object({ width: z.number(), height: z.number() }),
  handler: async (args, { driver, remember }) => {
    await resizeWindow(driver, args.width, args.height);
    const rect = await driver.manage().window().getRect();
    // What was asked, as open_session remembers it: the browser may keep a size of its own.
    remember({ window: { width: args.width, height: args.height } });
    return { width: rect.width, height: rect.height };
  },
});

export default [navigate, frame, dialog, resize];
