import { Conflict, GridUnavailable, NotFound } from '../errors.js';
import { splitCredentials } from '../grid/fetch.js';
import type { Grid } from '../grid/grid.js';
import { watchedSlot } from '../grid/offers.js';
import { fetchGridStatus } from '../grid/status.js';
import { callerOfWorkspace } from '../workspace/caller.js';
import type { RecordStore } from '../workspace/records.js';
import { copy, said } from './control-copy.js';
import type { Controls } from './control.js';
import type { Episode } from './control-episode.js';
import { checkControlAllowed, controlRefusal, type ControlAsker, type ControlBy } from './control-policy.js';
import type { BrowserWindow, ControlAsked, ControlLeft, LiveControl, LiveStatus, LiveTicket } from './answers.js';
import type { LiveStore } from './live-store.js';
import { Tickets, viewerId } from './tickets.js';
import { ControlCache } from './control-cache.js';
import type { TunnelOptions } from './tunnel/tunnel.js';
import { Tunnels } from './tunnel/tunnels.js';

export const NO_GRID_LIVE_VIEW =
  'This Grid has no live view: no slot advertises se:vncEnabled (the embedded Grid needs xvfb, x11vnc and websockify; see docs/live.md).';

/** Why a browser whose window is not locked is never watched, and the fix (docs/security.md). */
export const UNLOCKED_WINDOW =
  "This Grid's watchable slots do not lock the browser's window (no selenium-flow:lockedWindow in their stereotype): a person in Control would reach the node itself through the browser's file dialogs and internal pages, so they are not watched. Run the browsers in selenium-flow's sandbox (the embedded Grid does, with bubblewrap) and mark those slots; see docs/security.md.";

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
    /** who may take Control (CONTROL_BY): control-policy.ts */
    readonly controlBy: ControlBy,
    /** the nodes' VNC password (GRID_VNC_PASSWORD): the tunnel answers it, no viewer sees it */
    private readonly vncPassword?: string,
  ) {
    this.tickets = new Tickets(store);
    this.holders = new ControlCache(controls);
  }

  /**
   * A tunnel's options for one viewer of the browser `gridId`: its input goes through only while
   * that viewer holds Control, and it ends once that browser is no longer the workspace's or the
   * Grid's (ended, replaced, reaped, or found gone by a call).
   */
  tunnelOptions(workspace: string, viewer: string, gridId: string): TunnelOptions {
    return {
      viewer,
      holdsControl: () => this.holders.holds(workspace, viewer),
      stillShows: async () =>
        (await this.records.get(callerOfWorkspace(workspace).key))?.gridId === gridId &&
        (await this.grid.isRunning(gridId)),
      ...(this.vncPassword === undefined ? {} : { password: this.vncPassword }),
    };
  }

  async status(workspace: string): Promise<LiveStatus> {
    const record = await this.records.get(callerOfWorkspace(workspace).key);
    const liveView = await this.grid.liveViewOffered().catch(() => 'no' as const);
    const gridLiveView = liveView === 'yes';
    const browser = record?.gridId !== undefined;
    const vnc = browser && typeof record?.capabilities?.['se:vnc'] === 'string';
    const read = vnc && record?.gridId !== undefined ? await this.slotOf(record.gridId) : undefined;
    const slot = read === 'unlisted' ? undefined : read;
    const shared = slot?.shared;
    const watchable = vnc && shared === undefined && slot?.locked === true;
    const message = !gridLiveView
      ? liveView === 'unlocked'
        ? UNLOCKED_WINDOW
        : NO_GRID_LIVE_VIEW
      : !browser
        ? `Workspace ${workspace} has no browser now; one opens with its next call (open_session).`
        : shared !== undefined
          ? sharedScreen(shared)
          : vnc && slot?.locked !== true
            ? UNLOCKED_WINDOW
            : !watchable
              ? "This workspace's browser runs on a slot without VNC; end it (end_browser) and let the next call open one while a watchable slot is free."
              : undefined;
    const episode = await this.controls.episode(workspace);
    const control = episode && shownControl(episode);
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
   * A single-use ticket for one new viewer of the workspace's browser (the admin page's, or the
   * live app's), refused now with the reason rather than at the upgrade, where a viewer sees only "failed".
   */
  async ticket(workspace: string, who: string, asker: ControlAsker): Promise<LiveTicket> {
    const { window } = await this.vncOf(workspace);
    const viewer = viewerId();
    const minted = await this.tickets.mint({ workspace, who, viewer, ...(asker.via === 'app' ? { app: true } : {}) });
    const refused = controlRefusal(this.controlBy, asker);
    return {
      ...minted,
      viewer,
      path: `/admin/live/${workspace}?ticket=${minted.ticket}`,
      window,
      ...(refused ? { control_refused: refused } : {}),
    };
  }

  /**
   * A person asks for Control through one viewer (the admin page's or the live app's): held at
   * once when no call runs, else requested until the running call ends.
   */
  async take(workspace: string, who: string, viewer: string, asker: ControlAsker): Promise<ControlAsked> {
    checkControlAllowed(this.controlBy, asker);
    const episode = await this.controls.ask(workspace, who, viewer);
    const since = episode.granted ?? episode.since;
    return {
      state: episode.state,
      who: said(episode.who),
      since,
      hint: episode.state === 'held' ? copy.held(episode.who, since) : copy.viewerWaiting,
    };
  }

  /** One viewer lets go: handed_back once nobody holds it, else the episode another of the person's viewers keeps. */
  async handBack(workspace: string, who: string, viewer: string, asker: ControlAsker): Promise<ControlLeft> {
    checkControlAllowed(this.controlBy, asker);
    await this.controls.withdraw(workspace, who, viewer);
    const left = await this.controls.episode(workspace);
    return left ? shownControl(left) : { state: 'handed_back' };
  }

  /**
   * The Grid's VNC websocket for a workspace's browser (through the Grid's own address) and the
   * window a viewer shows of its screen, or a refusal.
   */
  async vncOf(
    workspace: string,
  ): Promise<{ url: string; authorization?: string; window: BrowserWindow; gridId: string }> {
    const record = await this.records.get(callerOfWorkspace(workspace).key);
    if (record?.gridId === undefined) {
      throw new NotFound(`Workspace ${workspace} has no browser to watch; open one first (open_session).`);
    }
    if (typeof record.capabilities?.['se:vnc'] !== 'string') {
      const status = await this.status(workspace);
      throw new Conflict(status.message ?? NO_GRID_LIVE_VIEW);
    }
    const slot = await this.slotOf(record.gridId);
    if (slot !== undefined && slot !== 'unlisted' && slot.shared !== undefined) {
      throw new Conflict(sharedScreen(slot.shared));
    }
    // A browser the Grid no longer lists is gone: the Grid refuses its VNC, and the viewer hears that.
    if (slot === undefined) {
      throw new GridUnavailable(
        "The Grid's status could not be read, so whether this browser's window is locked is unknown; try again in a moment.",
      );
    }
    if (slot !== 'unlisted' && !slot.locked) {
      throw new Conflict(UNLOCKED_WINDOW);
    }
    const { address, authorization } = splitCredentials(this.grid.url);
    const base = address.replace(/\/+$/, '').replace(/^http/, 'ws');
    return {
      url: `${base}/session/${encodeURIComponent(record.gridId)}/se/vnc`,
      authorization,
      window: { ...record.window },
      gridId: record.gridId,
    };
  }

  /**
   * Whether the browser's slot shares its display (how many browsers it shows), and whether it
   * locks the browser's window. Read when a person asks to watch, never on an agent's call:
   * /status touches no session.
   */
  private async slotOf(
    gridId: string,
  ): Promise<{ shared: number | undefined; locked: boolean } | 'unlisted' | undefined> {
    const status = await fetchGridStatus(this.grid.url).catch(() => undefined);
    if (!status) {
      return undefined;
    }
    const slot = watchedSlot(status, gridId);
    return slot ? { shared: slot.sharedBy, locked: slot.locked } : 'unlisted';
  }
}

/** An episode as the page and the live app see it: who holds it (as said), and since when. */
function shownControl(episode: Episode): LiveControl {
  return { state: episode.state, who: said(episode.who), since: episode.granted ?? episode.since };
}
