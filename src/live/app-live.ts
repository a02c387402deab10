import { BadRequest, NotFound } from '../errors.js';
import type { Caller } from '../workspace/caller.js';
import type { BrowserWindow, ControlAsked, ControlLeft, ControlState, LiveStatus, LiveTicket } from './answers.js';
import type { ControlAsker, ControlBy } from './control-policy.js';
import type { Tickets } from './tickets.js';

/**
 * Who holds Control taken from an MCP App: the server knows no name for the person at the
 * client, only that they are not the agent. Agents read it in the 409 and in await_control.
 */
export const APP_WHO = 'the person at the MCP client';

/** What the live app's tools need of the live view (LiveService has it). */
export interface LiveViewer {
  tickets: Tickets;
  controlBy: ControlBy;
  status(workspace: string): Promise<LiveStatus>;
  ticket(workspace: string, who: string, asker: ControlAsker): Promise<LiveTicket>;
  take(workspace: string, who: string, viewer: string, asker: ControlAsker): Promise<ControlAsked>;
  handBack(workspace: string, who: string, viewer: string, asker: ControlAsker): Promise<ControlLeft>;
  vncOf(workspace: string): Promise<{ window: BrowserWindow }>;
}

/** The live view as the caller's own tools see it: their workspace only, with their own credential. */
export interface LiveAppView {
  status(): Promise<LiveStatus>;
  /** a single-use ticket for the caller's workspace's tunnel, and the viewer id it stands for */
  ticket(): Promise<LiveTicket>;
  take(viewer: string): Promise<ControlAsked>;
  handBack(viewer: string): Promise<{ state: ControlState }>;
}

/**
 * A tool call carries a caller, never a workspace name: the workspace is the caller's own, so a
 * caller of one workspace cannot mint a ticket for, or take, another's browser. A stateless
 * caller has no workspace anyone could watch.
 */
export function liveAppView(parts: { viewer?: LiveViewer } | undefined, caller: Caller): LiveAppView {
  const asker: ControlAsker = { via: 'app', hostHeld: caller.hostHeld === true };
  const workspaceOf = (): { workspace: string; viewer: LiveViewer } => {
    if (!parts?.viewer) {
      throw new NotFound('This server has no live view (it was built without one); use selenium-flow serve.');
    }
    if (caller.workspace === undefined) {
      throw new BadRequest(
        'A stateless caller has no workspace browser to watch; call with a workspace (the workspace header or ?workspace=).',
      );
    }
    return { workspace: caller.workspace, viewer: parts.viewer };
  };
  return {
    status: async () => {
      const { workspace, viewer } = workspaceOf();
      return viewer.status(workspace);
    },
    ticket: async () => {
      const { workspace, viewer } = workspaceOf();
      const ticket = await viewer.ticket(workspace, APP_WHO, asker);
      // The app is told where its websocket is: the host it was reached through.
      const url = caller.origin && `${caller.origin.replace(/^http/, 'ws')}${ticket.path}`;
      return { ...ticket, ...(url ? { url } : {}) };
    },
    take: async (viewer) => {
      const { workspace, viewer: live } = workspaceOf();
      return live.take(workspace, APP_WHO, viewer, asker);
    },
    handBack: async (viewer) => {
      const { workspace, viewer: live } = workspaceOf();
      // The app's button needs only the state: it shows no name.
      const { state } = await live.handBack(workspace, APP_WHO, viewer, asker);
      return { state };
    },
  };
}
