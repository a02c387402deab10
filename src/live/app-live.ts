import { BadRequest, NotFound } from '../errors.js';
import type { Caller } from '../workspace/caller.js';
import type { BrowserWindow, LiveStatus, LiveTicket } from './answers.js';
import type { Controls } from './control.js';
import { viewerId } from './tickets.js';
import { copy, said } from './control-copy.js';
import type { Tickets } from './tickets.js';

/**
 * Who holds Control taken from an MCP App: the server knows no name for the person at the
 * client, only that they are not the agent. Agents read it in the 409 and in await_control.
 */
export const APP_WHO = 'the person at the MCP client';

/** What the live app's tools need of the live view (LiveService has it). */
export interface LiveViewer {
  tickets: Tickets;
  status(workspace: string): Promise<LiveStatus>;
  vncOf(workspace: string): Promise<{ window: BrowserWindow }>;
}

/** The live view as the caller's own tools see it: their workspace only, with their own credential. */
export interface LiveAppView {
  status(): Promise<LiveStatus>;
  /** a single-use ticket for the caller's workspace's tunnel, and the viewer id it stands for */
  ticket(): Promise<LiveTicket>;
  take(viewer: string): Promise<{ state: 'requested' | 'held'; who: string; since: string; hint: string }>;
  handBack(viewer: string): Promise<{ state: 'handed_back' | 'requested' | 'held' }>;
}

/**
 * A tool call carries a caller, never a workspace name: the workspace is the caller's own, so a
 * caller of one workspace cannot mint a ticket for, or take, another's browser. A stateless
 * caller has no workspace anyone could watch.
 */
export function liveAppView(
  parts: { viewer?: LiveViewer; controls: Controls } | undefined,
  caller: Caller,
): LiveAppView {
  const workspaceOf = (): { workspace: string; viewer: LiveViewer; controls: Controls } => {
    if (!parts?.viewer) {
      throw new NotFound('This server has no live view (it was built without one); use selenium-flow serve.');
    }
    if (caller.workspace === undefined) {
      throw new BadRequest(
        'A stateless caller has no workspace browser to watch; call with a workspace (the workspace header or ?workspace=).',
      );
    }
    return { workspace: caller.workspace, viewer: parts.viewer, controls: parts.controls };
  };
  return {
    status: async () => {
      const { workspace, viewer } = workspaceOf();
      return viewer.status(workspace);
    },
    ticket: async () => {
      const { workspace, viewer } = workspaceOf();
      // Refused now, with the reason, rather than at the upgrade where the app sees only "failed".
      const { window } = await viewer.vncOf(workspace);
      const id = viewerId();
      const minted = await viewer.tickets.mint({ workspace, who: APP_WHO, viewer: id, app: true });
      const path = `/admin/live/${workspace}?ticket=${minted.ticket}`;
      const url = caller.origin && `${caller.origin.replace(/^http/, 'ws')}${path}`;
      return { ...minted, viewer: id, path, ...(url ? { url } : {}), window };
    },
    take: async (viewer) => {
      const { workspace, controls } = workspaceOf();
      const episode = await controls.ask(workspace, APP_WHO, viewer);
      const since = episode.granted ?? episode.since;
      return {
        state: episode.state,
        who: said(episode.who),
        since,
        hint: episode.state === 'held' ? copy.held(episode.who, since) : copy.viewerWaiting,
      };
    },
    handBack: async (viewer) => {
      const { workspace, controls } = workspaceOf();
      await controls.withdraw(workspace, APP_WHO, viewer);
      const left = await controls.episode(workspace);
      return { state: left?.state ?? 'handed_back' };
    },
  };
}
