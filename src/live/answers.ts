import { z } from 'zod';

/**
 * The live view's answers to the admin API, declared once: the routes render their OpenAPI
 * schemas from these, the server's types are z.infer, and the admin page imports the same types.
 */

/** A person's Control, in order: asked for, held, handed back (the word agents read in a result's `control`). */
export const CONTROL_STATES = ['requested', 'held', 'handed_back'] as const;
export type ControlState = (typeof CONTROL_STATES)[number];
/** The states an episode is in while Control applies. */
export const CONTROL_APPLIES = ['requested', 'held'] as const satisfies readonly ControlState[];

/** A person's Control of a browser, while one applies: the page shows who holds it. */
export const liveControl = z.object({
  state: z.enum(CONTROL_APPLIES),
  who: z.string(),
  since: z.string().describe('when it was asked for, or granted (ISO 8601)'),
});

/**
 * The part of the VNC screen a live view shows: the admin page reads it in the status it polls,
 * the MCP App (which polls nothing) in its ticket.
 */
const browserWindow = z
  .object({ width: z.number().int(), height: z.number().int() })
  .describe(
    "the browser's window as it opened or was last resized: the live view shows that much of the VNC screen, from its top-left corner, where a watchable browser opens",
  );

/** What the admin page shows before it connects: whether there is anything to watch, and why not. */
export const liveStatus = z.object({
  browser: z.boolean().describe('the workspace has a browser now'),
  watchable: z.boolean().describe('that browser runs on a watchable slot (its Grid node advertised VNC for it)'),
  grid_live_view: z.boolean().describe('some slot of the Grid advertises se:vncEnabled'),
  message: z.string().optional().describe('what a person reads when there is nothing to watch'),
  control: liveControl.optional(),
  window: browserWindow.optional(),
  control_refused: z
    .string()
    .optional()
    .describe('why whoever asked cannot take Control here, and what would let them (docs/security.md)'),
});

/** A single-use ticket for the live view's websocket. */
export const liveTicket = z.object({
  ticket: z.string(),
  expires_in_seconds: z.number().int(),
  path: z.string(),
  url: z.string().optional().describe('the websocket address, where the server knows how the caller reached it'),
  viewer: z.string().describe('this viewer, for POST …/control: its tunnel ending withdraws'),
  window: browserWindow,
  control_refused: z
    .string()
    .optional()
    .describe('why this viewer cannot take Control, and where a person can; absent: it may'),
});

/** POST …/control: the person's request, held at once or waiting for the running call. */
export const controlAsked = liveControl.extend({ hint: z.string().describe('what the person is told to do next') });

/**
 * DELETE …/control: handed_back once nobody holds it (the word agents read in a result's
 * `control`), else the episode another of their viewers keeps.
 */
export const controlLeft = z.union([liveControl, z.object({ state: z.literal('handed_back' satisfies ControlState) })]);

export type LiveControl = z.infer<typeof liveControl>;
export type LiveStatus = z.infer<typeof liveStatus>;
export type LiveTicket = z.infer<typeof liveTicket>;
export type BrowserWindow = z.infer<typeof browserWindow>;
export type ControlAsked = z.infer<typeof controlAsked>;
export type ControlLeft = z.infer<typeof controlLeft>;
