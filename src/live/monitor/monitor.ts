import type { BidiEndpoint } from '../../grid/grid.js';
import { Conflict } from '../../errors.js';
import type { LogLines } from '../../ops/log.js';
import type { BidiConnection, Lost } from './bidi.js';

/** Why a browser's BiDi connection is open. Each reason holds it independently of the others. */
export type ReasonName = 'capture' | 'control';

/** What a reason does with the shared connection while it holds it. */
export interface Reason {
  /** the BiDi events this reason listens to; subscribed for it alone, ended when it lets go */
  events: readonly string[];
  onEvent(event: string, params: unknown): void;
  /** browser-side state the reason needs (a data collector); what it returns undoes it on letting go */
  start?(connection: BidiConnection): Promise<(() => Promise<void>) | void>;
  /**
   * The reason is let go of without asking: with `why`, its connection went away under it (the
   * browser ended, the Grid dropped the socket, the mapper failed; a clause that completes
   * "…stopped at HH:MM UTC: "); without, it is no longer wanted (stillWanted said so).
   */
  onLost?(why?: string): void;
  /**
   * Asked every `watchMs` while the reason holds: false lets it go as lost. The Grid does not
   * close a BiDi socket when its session ends (seen on 4.48), so a browser ended through another
   * replica, or reaped, or a reason turned off elsewhere, is found this way.
   */
  stillWanted?(): Promise<boolean>;
}

/** The browser a reason wants watched, as its workspace record knows it. */
export interface MonitoredBrowser {
  gridId: string;
  /** where its BiDi is; undefined when the browser (its Grid or driver) offers none */
  bidiAddress: BidiEndpoint | undefined;
}

/** A browser's monitor as tests and the admin page see it. */
export interface MonitorState {
  open: boolean;
  reasons: ReasonName[];
}

export interface MonitorOptions {
  connect(address: BidiEndpoint): Promise<BidiConnection>;
  /** where a connection lost under its reasons is said (never with a URL, title, Grid id or token) */
  log?: Pick<LogLines, 'warn'>;
  /** how often reasons are asked whether they are still wanted (default 5 s) */
  watchMs?: number;
}

const FEATURE: Record<ReasonName, string> = {
  capture: 'network capture',
  control: 'following the pages a person visits',
};

/** The browser has no WebDriver BiDi: the feature that wanted it is off, everything else works. */
export class BidiUnavailable extends Conflict {
  constructor(reason: ReasonName, why: string) {
    super(
      `This browser has no WebDriver BiDi connection (${why}), so ${FEATURE[reason]} is unavailable; every other tool still works, and a browser on a Grid that announces webSocketUrl (Firefox) or se:cdp (Chromium) has it.`,
    );
  }
}

interface Held {
  reason: Reason;
  undo: Array<() => Promise<void>>;
}

interface Monitor {
  connection: BidiConnection;
  reasons: Map<ReasonName, Held>;
  watch: NodeJS.Timeout | undefined;
}

/**
 * One BiDi connection per browser, opened when the first reason wants it, shared by every
 * reason, and closed when the last lets go (or the browser goes). Changes to one browser's
 * monitor run one at a time, so a reason letting go never races another arriving.
 */
export class BidiMonitors {
  private readonly monitors = new Map<string, Monitor>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: MonitorOptions) {}

  state(gridId: string): MonitorState {
    const monitor = this.monitors.get(gridId);
    return { open: monitor !== undefined, reasons: monitor ? [...monitor.reasons.keys()] : [] };
  }

  /** How many connections this process holds open (for tests and /metrics). */
  get openCount(): number {
    return this.monitors.size;
  }

  /** The connection a reason holds, for its commands (getData); undefined when none is open. */
  connection(gridId: string): BidiConnection | undefined {
    return this.monitors.get(gridId)?.connection;
  }

  /**
   * Holds the browser's connection for a reason, opening it if none is open. A reason that
   * already holds it is replaced (its subscriptions and browser-side state are undone first).
   */
  want(browser: MonitoredBrowser, name: ReasonName, reason: Reason): Promise<void> {
    return this.serial(browser.gridId, async () => {
      const monitor = this.monitors.get(browser.gridId) ?? (await this.open(browser, name));
      const previous = monitor.reasons.get(name);
      if (previous) {
        monitor.reasons.delete(name);
        await undoAll(previous);
      }
      const held: Held = { reason, undo: [] };
      monitor.reasons.set(name, held);
      try {
        for (const event of reason.events) {
          held.undo.push(await monitor.connection.subscribe(event, (params) => reason.onEvent(event, params)));
        }
        const undo = await reason.start?.(monitor.connection);
        if (undo) {
          held.undo.push(undo);
        }
      } catch (err) {
        monitor.reasons.delete(name);
        await undoAll(held);
        await this.closeIfUnused(browser.gridId, monitor);
        throw new BidiUnavailable(name, `it refused a BiDi command: ${errorText(err)}`);
      }
    });
  }

  /**
   * The reason lets go; the connection closes when no reason is left. Letting go twice is
   * harmless; with `only`, nothing happens unless that very reason is the one held (a reason
   * letting itself go must not end the one that replaced it).
   */
  letGo(gridId: string, name: ReasonName, only?: Reason): Promise<void> {
    return this.serial(gridId, async () => {
      const monitor = this.monitors.get(gridId);
      const held = monitor?.reasons.get(name);
      if (!monitor || !held || (only && held.reason !== only)) {
        return;
      }
      monitor.reasons.delete(name);
      await undoAll(held);
      await this.closeIfUnused(gridId, monitor);
    });
  }

  /** The browser ended: every reason is told it was lost, and the connection closes. */
  forget(gridId: string, why: string = BROWSER_ENDED): Promise<void> {
    return this.serial(gridId, async () => {
      const monitor = this.monitors.get(gridId);
      if (monitor) {
        await this.drop(gridId, monitor, why);
      }
    });
  }

  /** Closes every connection (the server is stopping); reasons are told they were lost. */
  async close(): Promise<void> {
    await Promise.all([...this.monitors.keys()].map((gridId) => this.forget(gridId, SERVER_STOPPED)));
  }

  private async open(browser: MonitoredBrowser, name: ReasonName): Promise<Monitor> {
    if (!browser.bidiAddress) {
      throw new BidiUnavailable(name, 'its session announced neither webSocketUrl nor se:cdp');
    }
    let connection: BidiConnection;
    try {
      connection = await this.options.connect(browser.bidiAddress);
    } catch (err) {
      throw new BidiUnavailable(name, `its websocket did not open: ${errorText(err)}`);
    }
    const monitor: Monitor = { connection, reasons: new Map(), watch: undefined };
    this.monitors.set(browser.gridId, monitor);
    connection.onLost((lost) => void this.lose(browser.gridId, monitor, lost).catch(() => undefined));
    monitor.watch = setInterval(
      () => void this.check(browser.gridId, monitor).catch(() => undefined),
      this.options.watchMs ?? 5_000,
    );
    monitor.watch.unref();
    return monitor;
  }

  /** Lets go, as lost, of every reason that is no longer wanted; a check that fails keeps the reason. */
  private async check(gridId: string, monitor: Monitor): Promise<void> {
    for (const [name, held] of monitor.reasons) {
      const wanted = await (held.reason.stillWanted?.() ?? Promise.resolve(true)).catch(() => true);
      if (!wanted) {
        await this.serial(gridId, async () => {
          if (monitor.reasons.get(name) === held) {
            monitor.reasons.delete(name);
            tell(held, undefined);
            await undoAll(held);
            await this.closeIfUnused(gridId, monitor);
          }
        });
      }
    }
  }

  private async closeIfUnused(gridId: string, monitor: Monitor): Promise<void> {
    if (monitor.reasons.size === 0 && this.monitors.get(gridId) === monitor) {
      await this.drop(gridId, monitor, undefined);
    }
  }

  /**
   * The connection ended under its reasons (the browser, the Grid or the mapper): this browser's
   * monitor ends, each reason is told why, and a line says so. No other browser's is touched.
   */
  private lose(gridId: string, monitor: Monitor, lost: Lost): Promise<void> {
    return this.serial(gridId, async () => {
      if (this.monitors.get(gridId) !== monitor) {
        return;
      }
      this.options.log?.warn(
        {
          event: 'bidi_monitor_lost',
          reasons: [...monitor.reasons.keys()],
          ...(lost.detail === undefined ? {} : { detail: lost.detail }),
        },
        `a browser's BiDi monitor ended: ${lost.why}`,
      );
      await this.drop(gridId, monitor, lost.why);
    });
  }

  /** Ends a monitor; with `why`, its reasons are told they were lost (undefined: none is left). */
  private async drop(gridId: string, monitor: Monitor, why: string | undefined): Promise<void> {
    this.monitors.delete(gridId);
    clearInterval(monitor.watch);
    const reasons = [...monitor.reasons.values()];
    monitor.reasons.clear();
    if (why !== undefined) {
      for (const held of reasons) {
        tell(held, why);
      }
    }
    await monitor.connection.close().catch(() => undefined);
  }

  private serial<T>(gridId: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(gridId) ?? Promise.resolve();
    const result = before.then(work, work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(gridId, settled);
    void settled.then(() => {
      if (this.queues.get(gridId) === settled) {
        this.queues.delete(gridId);
      }
    });
    return result;
  }
}

const BROWSER_ENDED = 'the browser ended';
const SERVER_STOPPED = 'the server stopped';

/** A reason's onLost, which is the reason's own code: whatever it throws stays here. */
function tell(held: Held, why: string | undefined): void {
  try {
    held.reason.onLost?.(why);
  } catch {
    // The reason failed to note its loss; the monitor ends all the same.
  }
}

// Undoing talks to the browser, which may be gone (its socket then answers nothing for 30 s):
// the steps run together, and together get UNDO_MS.
const UNDO_MS = 2_000;

async function undoAll(held: Held): Promise<void> {
  const steps = held.undo;
  held.undo = [];
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, UNDO_MS);
  });
  await Promise.race([Promise.all(steps.map((undo) => undo().catch(() => undefined))), late]);
  clearTimeout(timer);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
