import { Conflict, NotFound } from '../errors.js';
import { splitCredentials } from '../grid/fetch.js';
import type { Grid } from '../grid/grid.js';
import { screenSharedBy } from '../grid/offers.js';
import { fetchGridStatus } from '../grid/status.js';
import { callerOfWorkspace } from '../workspace/caller.js';
import type { RecordStore } from '../workspace/records.js';
import { said } from './control-copy.js';
import type { Controls } from './control.js';
import type { BrowserWindow, LiveStatus } from './answers.js';
import type { LiveStore } from './live-store.js';
import { Tickets } from './tickets.js';
import { ControlCache } from './control-cache.js';
import type { TunnelOptions } from './tunnel.js';
import { Tunnels } from './tunnels.js';

export const NO_GRID_LIVE_VIEW =
  'This Grid has no live view: no slot advertises se:vncEnabled (the embedded Grid needs xvfb, x11vnc and websockify; see docs/live.md).';

/** Why a browser on a node that shares its display cannot be watched, and the fix. */
export function sharedScreen(sessions: number): string {
  return `This browser's Grid node runs up to ${sessions} browsers on one display, and its VNC screen shows them all on top of one another, so it cannot be watched; give watchable nodes one session each (SE_NODE_MAX_SESSIONS=1 on docker-selenium, max-sessions = 1 in a node's config), then end this browser (end_browser) and open another.`;
}

/** The live view's parts: the tickets, the open tunnels, and where a workspace's VNC is. */
export class LiveService {
  readonly tickets: Tickets;
  readonly tunnels = new Tunnels();
  private readonly holders: ControlCache;

  constructor(
    readonly store: LiveStore,
    private readonly records: RecordStore,
    private readonly grid: Grid,
    readonly controls: Controls,
    /** the nodes' VNC password (GRID_VNC_PASSWORD): the tunnel answers it, no viewer sees it */
    private readonly vncPassword?: string,
  ) {
    this.tickets = new Tickets(store);
    this.holders = new ControlCache(controls);
  }

  /** A tunnel's options for one viewer: its input goes through only while that viewer holds Control. */
  tunnelOptions(workspace: string, viewer: string): TunnelOptions {
    return {
      viewer,
      holdsControl: () => this.holders.holds(workspace, viewer),
      ...(this.vncPassword === undefined ? {} : { password: this.vncPassword }),
    };
  }

  async status(workspace: string): Promise<LiveStatus> {
    const record = await this.records.get(callerOfWorkspace(workspace).key);
    const gridLiveView = await this.grid.hasLiveView().catch(() => false);
    const browser = record?.gridId !== undefined;
    const vnc = browser && typeof record?.capabilities?.['se:vnc'] === 'string';
    const shared = vnc && record?.gridId !== undefined ? await this.sharedBy(record.gridId) : undefined;
    const watchable = vnc && shared === undefined;
    const message = !gridLiveView
      ? NO_GRID_LIVE_VIEW
      : !browser
        ? `Workspace ${workspace} has no browser now; one opens with its next call (open_session).`
        : shared !== undefined
          ? sharedScreen(shared)
          : !watchable
            ? "This workspace's browser runs on a slot without VNC; end it (end_browser) and let the next call open one while a watchable slot is free."
            : undefined;
    const episode = await this.controls.episode(workspace);
    const control = episode && {
      state: episode.state,
      who: said(episode.who),
      since: episode.granted ?? episode.since,
    };
    return {
      browser,
      watchable,
      grid_live_view: gridLiveView,
      ...(message ? { message } : {}),
      ...(control ? { control } : {}),
      ...(browser && record ? { window: { ...record.window } } : {}),
    };
  }

  /**
   * The Grid's VNC websocket for a workspace's browser (through the Grid's own address) and the
   * window a viewer shows of its screen, or a refusal.
   */
  async vncOf(workspace: string): Promise<{ url: string; authorization?: string; window: BrowserWindow }> {
    const record = await this.records.get(callerOfWorkspace(workspace).key);
    if (record?.gridId === undefined) {
      throw new NotFound(`Workspace ${workspace} has no browser to watch; open one first (open_session).`);
    }
    if (typeof record.capabilities?.['se:vnc'] !== 'string') {
      const status = await this.status(workspace);
      throw new Conflict(status.message ?? NO_GRID_LIVE_VIEW);
    }
    const shared = await this.sharedBy(record.gridId);
    if (shared !== undefined) {
      throw new Conflict(sharedScreen(shared));
    }
    const { address, authorization } = splitCredentials(this.grid.url);
    const base = address.replace(/\/+$/, '').replace(/^http/, 'ws');
    return {
      url: `${base}/session/${encodeURIComponent(record.gridId)}/se/vnc`,
      authorization,
      window: { ...record.window },
    };
  }

  /** Read when a person asks to watch, never on an agent's call: /status touches no session. */
  private async sharedBy(gridId: string): Promise<number | undefined> {
    const status = await fetchGridStatus(this.grid.url).catch(() => undefined);
    return status && screenSharedBy(status, gridId);
  }
}
