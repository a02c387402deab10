import { z } from 'zod';
import { windowHeight, windowWidth } from '../schemas.js';
import { defineTool } from '../capability.js';
import { outlineTool } from './reading.js';
import { readSkill, readSkillReference, REFERENCE_URI, SKILL_URI } from '../skill.js';

export const openSession = defineTool({
  name: 'open_session',
  title: 'Open a browser',
  description: 'Open a browser, ending the one held.',
  kind: 'act',
  destructive: false,
  attach: 'none',
  runnableInFlow: false,
  input: z.object({
    browser: z.enum(['chrome', 'firefox']).optional().describe('default: last used'),
    width: windowWidth.optional(),
    height: windowHeight.optional(),
  }),
  output: z.object({
    session_id: z
      .string()
      .optional()
      .describe('stateless mode only: an opaque handle for this browser, valid for the caller that opened it'),
    url: z.string(),
    title: z.string(),
  }),
  handler: async (args, { workspace, secrets }) => {
    // A saved workspace's previous browser ends here: the values typed into it go with it.
    secrets.forgetBrowser();
    const opened = await workspace.open(args.browser, { width: args.width, height: args.height });
    return {
      ...(opened.sessionId === undefined ? {} : { session_id: opened.sessionId }),
      url: opened.url,
      title: opened.title,
    };
  },
});

export const endBrowser = defineTool({
  name: 'end_browser',
  title: 'End the browser',
  description: 'End the browser; its files and flows stay.',
  kind: 'act',
  attach: 'none',
  usesSessionId: 'required',
  runnableInFlow: false,
  input: z.object({}),
  output: z.object({ ended: z.boolean().describe('false when there was no browser to end') }),
  handler: async (_args, { workspace, secrets }) => {
    const ended = await workspace.end();
    secrets.forgetBrowser();
    return ended;
  },
});

export const currentWorkspace = defineTool({
  name: 'current_workspace',
  title: 'Current workspace',
  description: 'Mirror of workspace://current: browser, window, page.',
  kind: 'read',
  attach: 'none',
  usesSessionId: 'optional',
  runnableInFlow: false,
  mirrors: {
    uri: 'workspace://current',
    name: 'current workspace',
    description: 'This caller’s workspace: its browser, window and last page. Reading it never opens a browser.',
  },
  answersUnderControl: true,
  takesTurn: false,
  http: { method: 'GET', path: '/workspace' },
  input: z.object({}),
  output: z.object({
    workspace: z.string().nullable(),
    mode: z.enum(['saved', 'stateless']),
    browser: z
      .object({
        session_id: z.string().optional().describe('stateless mode only: the handle passed'),
        kind: z.enum(['chrome', 'firefox']),
        version: z.string(),
        alive: z.boolean(),
      })
      .nullable(),
    window: z.object({ width: z.number(), height: z.number() }).nullable(),
    url: z.string().nullable(),
    title: z.string().nullable(),
    flows_here: z.array(z.string()).describe('saved flows meant for the current page (run_flow)'),
  }),
  handler: async (_args, { workspace }) => workspace.describe(),
});

export const skillTool = defineTool({
  name: 'selenium_flow_skill',
  title: 'The skill',
  description: `Mirror of ${SKILL_URI} (read it first), or a reference it links to.`,
  kind: 'read',
  attach: 'none',
  runnableInFlow: false,
  mirrors: [
    {
      uri: SKILL_URI,
      name: 'selenium-flow skill',
      description: 'The loop, the tools, selectors and the two modes, in one page. Read it first.',
      mimeType: 'text/markdown',
    },
    {
      uri: `${REFERENCE_URI}{reference}`,
      name: 'skill reference',
      title: 'A page the skill links to',
      description: 'FLOWS.md, SECRETS.md, FILES.md…: the detail SKILL.md links to, each also listed as a resource.',
      mimeType: 'text/markdown',
    },
  ],
  answersUnderControl: true,
  takesTurn: false,
  http: { method: 'GET', path: '/skill' },
  input: z.object({ reference: z.string().min(1).max(64).optional().describe('e.g. FLOWS.md') }),
  output: z.object({ text: z.string() }),
  handler: async (args) => ({ text: args.reference ? await readSkillReference(args.reference) : await readSkill() }),
});

export const awaitControl = defineTool({
  name: 'await_control',
  title: 'Await hand-back',
  description: 'After a 409 naming it: waits for the hand-back; answers pages visited and the page now.',
  kind: 'read',
  attach: 'none',
  runnableInFlow: false,
  answersUnderControl: true,
  // it waits for a person, not for the browser: LIVE_AWAIT_CAP bounds it, not CALL_TIMEOUT
  takesTurn: false,
  boundsItself: true,
  answersAsTaskWhileHeld: true,
  // enough to see the page, small enough for a model's context
  handBackRead: { tool: outlineTool, args: { max_chars: 4000 } },
  input: z.object({}),
  output: z.object({
    handed_back: z.boolean().describe('false: nobody had control, or still held at the cap (call again)'),
    message: z.string().describe('what to do next'),
    who: z.string().optional(),
    held_for: z.number().optional().describe('seconds they held it'),
    ended: z.literal(true).optional().describe('the browser ended while they held it: open_session'),
    visited: z
      .array(z.object({ url: z.string(), title: z.string() }))
      .optional()
      .describe('pages they reached, oldest first (at most 100)'),
    dropped: z.number().optional().describe('older pages left out of visited'),
    url: z.string().optional().describe('the page now'),
    title: z.string().optional(),
    outline: z.string().optional(),
    truncated: z.boolean().optional(),
  }),
  handler: async (_args, { control }) => ({ ...(await control.awaitHandBack()) }),
});

export default [openSession, endBrowser, currentWorkspace, skillTool, awaitControl];
