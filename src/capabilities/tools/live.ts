import { z } from 'zod';
import { CONTROL_STATES, controlAsked, liveTicket } from '../../live/answers.js';
import { defineTool } from '../capability.js';

/**
 * The live view as an MCP App (docs/apps.md): `watch` is the row a model calls, and a client that
 * renders apps shows the caller's own workspace's browser beside its answer. The other rows are
 * the app's buttons: a model never lists them. Every one acts on the caller's own workspace with
 * the caller's own credential; none takes a workspace name.
 */

const viewer = z
  .string()
  .length(16)
  .regex(/^[A-Za-z0-9_-]+$/)
  .describe('the viewer id live_ticket answered: its tunnel lets input through while it holds Control');

/** The app's buttons: a client that renders apps lets the app call them, and no model lists them. */
const APP_ONLY = { name: 'live', visibility: ['app'] } as const;
/** Take control and Hand back: a person's act, which only some hosts' apps may do (CONTROL_BY). */
const CONTROL_BUTTON = { ...APP_ONLY, control: true } as const;

export const watch = defineTool({
  attach: 'none',
  runnableInFlow: false,
  answersUnderControl: true,
  takesTurn: false,
  name: 'watch',
  title: 'Watch the browser',
  description: 'Shows the person at the client your browser live; they may take control.',
  kind: 'read',
  app: { name: 'live', appIsTheAnswer: true },
  http: { method: 'GET', path: '/workspace/live' },
  input: z.object({}),
  output: z.object({ watchable: z.boolean(), message: z.string().optional() }),
  handler: async (_args, { live }) => {
    const { watchable, message } = await live.status();
    return { watchable, ...(message ? { message } : {}) };
  },
});

export const liveTicketTool = defineTool({
  attach: 'none',
  runnableInFlow: false,
  answersUnderControl: true,
  takesTurn: false,
  name: 'live_ticket',
  title: 'Live view ticket',
  description: "The live app's single-use ticket (30 s) for this workspace's live view websocket.",
  kind: 'read',
  // it mints a ticket: not a promise to write nothing
  readOnly: false,
  app: APP_ONLY,
  input: z.object({}),
  output: liveTicket,
  handler: async (_args, { live }) => live.ticket(),
});

export const takeControl = defineTool({
  attach: 'none',
  runnableInFlow: false,
  answersUnderControl: true,
  takesTurn: false,
  name: 'take_control',
  title: 'Take control',
  description: "The person at the client takes this workspace's browser; the agent's calls wait until they hand back.",
  kind: 'act',
  destructive: false,
  app: CONTROL_BUTTON,
  input: z.object({ viewer }),
  output: controlAsked,
  handler: async (args, { live }) => live.take(args.viewer),
});

export const handBack = defineTool({
  attach: 'none',
  runnableInFlow: false,
  answersUnderControl: true,
  takesTurn: false,
  name: 'hand_back',
  title: 'Hand back',
  description: "The person at the client hands the browser back; the agent's await_control returns.",
  kind: 'act',
  destructive: false,
  app: CONTROL_BUTTON,
  input: z.object({ viewer }),
  output: z.object({ state: z.enum(CONTROL_STATES) }),
  handler: async (args, { live }) => live.handBack(args.viewer),
});

export default [watch, liveTicketTool, takeControl, handBack];
