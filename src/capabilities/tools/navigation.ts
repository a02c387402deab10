import { z } from 'zod';
import { answerDialog } from '../../browser/dialogs.js';
import { switchFrame } from '../../browser/frames.js';
import { resizeWindow } from '../../browser/window.js';
import { moveThroughHistory, navigateTo } from '../../browser/navigation.js';
import { actOnTabs } from '../../browser/tabs.js';
import { defineTool, asText, shortText } from '../capability.js';
import { checked, exactlyOne, selector, waitOf, waitTimeout, webUrl, windowHeight, windowWidth } from '../schemas.js';
import { MAX_PROMPT_CHARS } from '../../limits.js';

/** Far more tabs than an agent keeps open; a bound on what a place may say. */
const MAX_TABS = 100;

const TAB_ACTIONS = ['tabs', 'new_tab', 'close_tab'] as const;

const tabList = z
  .array(
    z.object({
      tab: z.number(),
      url: z.string(),
      title: z.string(),
      active: z.boolean().describe('the tab the browser acts in'),
      dialog: z.literal(true).optional(),
    }),
  )
  .optional()
  .describe("the browser's tabs, after a tab action");

export const navigate = defineTool({
  name: 'navigate',
  title: 'Navigate',
  description: 'Open url or tab; back, forward, refresh; tabs, new_tab, close_tab.',
  kind: 'act',
  attach: 'open',
  runnableInFlow: true,
  navigates: true,
  inEnteredFrame: false,
  // A history move says which it was, wherever it led; an opened page names where it landed (the
  // page read), or the address it was sent to when the page went unread.
  summary: (args, result) => {
    if (result.tabs !== undefined) {
      return `${args.action ?? 'selected a tab'}: ${result.tabs.length} open`;
    }
    if (args.action !== undefined) {
      return args.action === 'refresh' ? 'refreshed' : `went ${asText(args.action)}`;
    }
    return `went to ${asText((result as { url?: string }).url ?? args.url ?? '')}`;
  },
  secretRefusal:
    'navigate takes no secret: a secret in a URL lands in browser history, referrers, server logs and the workspace record. Open the page, then type the secret into its field with write {selector, secret: {name, key}}.',
  input: z.object({
    url: webUrl.optional(),
    action: z.enum(['back', 'forward', 'refresh', ...TAB_ACTIONS]).optional(),
    tab: z.number().int().min(-MAX_TABS).max(MAX_TABS).optional(),
  }),
  check: navigationProblem,
  output: z.object({ tabs: tabList }),
  handler: async (args, { driver, pageKnown, remember }) => {
    if (args.tab !== undefined || isTabAction(args.action)) {
      // Each tab starts on its top page; the workspace learns the windows, so no act names these as new.
      const listed = await actOnTabs(driver, args, pageKnown);
      remember({ frames: 0, windows: listed.windows });
      return { tabs: listed.tabs };
    }
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

function isTabAction(action: string | undefined): action is (typeof TAB_ACTIONS)[number] {
  return TAB_ACTIONS.some((tabAction) => tabAction === action);
}

/** A url alone, a history move alone, a tab alone, or a tab action with what it takes. */
function navigationProblem(args: { url?: string; action?: string; tab?: number }): string | undefined {
  const { url, action, tab } = args;
  if (action === 'new_tab') {
    return tab === undefined ? undefined : 'new_tab opens a tab: pass url for its page, and no tab.';
  }
  if (action === 'close_tab') {
    return url === undefined ? undefined : 'close_tab closes tab (the current one when none is passed): pass no url.';
  }
  return exactlyOne(args, ['url', 'action', 'tab'])
    ? undefined
    : 'Pass exactly one of url (a page to open), action (back, forward, refresh, tabs, new_tab, close_tab) or tab (an id from action tabs, to select it).';
}

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
    const rect = await resizeWindow(driver, args.width, args.height);
    // What was asked, as open_session remembers it: the browser may keep a size of its own.
    remember({ window: { width: args.width, height: args.height } });
    return { width: rect.width, height: rect.height };
  },
});

export default [navigate, frame, dialog, resize];
