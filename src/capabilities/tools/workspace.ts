import { z } from 'zod';
import { windowHeight, windowWidth } from '../schemas.js';
import { defineTool } from '../capability.js';
import { BROWSER_KINDS } from '../../grid/capabilities.js';
import { currentWorkspaceAnswer } from '../../workspace/view.js';
import { handBackSummary } from '../../live/hand-back.js';
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
    browser: z.enum(BROWSER_KINDS).optional().describe('default: last used'),
    width: windowWidth.optional(),
    height: windowHeight.optional(),
  }),
  // A new browser's page is blank: the answer says which browser opened, not a page it read.
  output: z.object({
    session_id: z
      .string()
      .optional()
      .describe('stateless mode only: an opaque handle for this browser, valid for the caller that opened it'),
    browser: z.enum(BROWSER_KINDS),
    version: z.string(),
  }),
  handler: async (args, { workspace, secrets }) => {
    // A saved workspace's previous browser ends here: the values typed into it go with it.
    secrets.forgetBrowser();
    const opened = await workspace.open(args.browser, { width: args.width, height: args.height });
    return {
      ...(opened.sessionId === undefined ? {} : { session_id: opened.sessionId }),
      browser: opened.browser,
      version: opened.version,
    };
  },
});

export const endBrowser = defineTool({
  name: 'end_browser',
  title: 'End the browser',
  description: 'End the browser; files and flows stay.',
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
  output: currentWorkspaceAnswer,
  handler: async (_args, { workspace }) => workspace.describe(),
});

export const skillTool = defineTool({
  name: 'selenium_flow_skill',
  title: 'The skill',
  description: `Mirror of ${SKILL_URI}, or a reference it links to.`,
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
  description: 'After a 409 naming it: wait for the person to hand back.',
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
  output: handBackSummary,
  handler: async (_args, { control }) => ({ ...(await control.awaitHandBack()) }),
});

export default [openSession, endBrowser, currentWorkspace, skillTool, awaitControl];
