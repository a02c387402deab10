import { z } from 'zod';
import { windowSide } from '../schemas.js';
import { defineTool } from '../capability.js';
import { readSkill } from '../skill.js';

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
    width: windowSide.optional().describe('default 1280'),
    height: windowSide.optional().describe('default 900'),
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
  description: 'Mirror of skill://selenium-flow/SKILL.md. Read it first.',
  kind: 'read',
  attach: 'none',
  runnableInFlow: false,
  mirrors: {
    uri: 'skill://selenium-flow/SKILL.md',
    name: 'selenium-flow skill',
    description: 'The loop, the tools, selectors and the two modes, in one page. Read it first.',
    mimeType: 'text/markdown',
  },
  answersUnderControl: true,
  takesTurn: false,
  http: { method: 'GET', path: '/skill' },
  input: z.object({}),
  output: z.object({ text: z.string() }),
  handler: async () => ({ text: await readSkill() }),
});

export default [openSession, endBrowser, currentWorkspace, skillTool];
