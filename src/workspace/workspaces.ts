import type { WebDriver } from 'selenium-webdriver';
import { NotFound, TooManyRequests } from '../errors.js';
import { NO_EVENTS, type EventSink } from '../events/events.js';
import type { BrowserKind } from '../grid/capabilities.js';
import { gridCall } from '../grid/failures.js';
import type { Grid } from '../grid/grid.js';
import type { Caller } from './caller.js';
import { HANDLE_PREFIX, handleKey, newHandle, NO_SUCH_HANDLE } from './handles.js';
import { browserNameOf, newRecord, type RecordStore, type SeenPage, type WorkspaceRecord } from './records.js';
import { abandonedError, openWhileWanted, OpensInFlight } from './opening.js';

export interface AttachedBrowser {
  driver: WebDriver;
  gridId: string;
  browserName: string;
  /** a saved workspace's record as this call found (or wrote) it: calls on it take turns, so it stays current */
  record?: WorkspaceRecord;
  /** stateless: the opaque handle the caller holds instead of the Grid id */
  handle?: string;
  /** Chromium's DevTools endpoint, on the Grid's address: what a page that never yields does not hold up */
  devtools?: string;
}

export interface WorkspaceLimits {
  /** BROWSERS_PER_CALLER */
  browsersPerCaller: number;
  /** GRID_SLOT_WAIT, in seconds */
  slotWaitSeconds: number;
  /** DEFAULT_BROWSER: what a workspace opens before anyone chose */
  defaultBrowser?: BrowserKind;
}

const DEFAULT_LIMITS: WorkspaceLimits = { browsersPerCaller: 4, slotWaitSeconds: 30 };

/**
 * Workspaces and the browsers they hold. The server holds no browser: a record says which
 * Grid id a workspace has, and a driver is bound to it locally for each call. A stateless
 * caller holds an opaque handle; its record (stored under the handle's digest, so the store
 * never holds the handle itself) names the Grid id, which no caller ever sees: a page that
 * learned its own session id could speak to its browser through the Grid's DevTools proxy.
 */
export class Workspaces {
  private readonly opening = new OpensInFlight();
  private readonly endedListeners: ((key: string, gridId: string) => void)[] = [];

  constructor(
    readonly grid: Grid,
    readonly store: RecordStore,
    private readonly limits: WorkspaceLimits = DEFAULT_LIMITS,
    /** the operator's event stream: browsers opened and ended */
    private readonly events: EventSink = NO_EVENTS,
  ) {}

  /** Told (store key, Grid id) whenever this process ends or replaces a browser: what watches it lets go. */
  onBrowserEnded(listener: (key: string, gridId: string) => void): void {
    this.endedListeners.push(listener);
  }

  private ended(key: string, gridId: string): void {
    for (const listener of this.endedListeners) {
      listener(key, gridId);
    }
  }

  async record(key: string): Promise<WorkspaceRecord | undefined> {
    return this.store.get(key);
  }

  /** Opens a browser; a saved workspace's previous browser is ended first. */
  async open(
    caller: Caller,
    kind: BrowserKind | undefined,
    window: { width?: number; height?: number },
    known?: WorkspaceRecord,
  ): Promise<AttachedBrowser & { kind: BrowserKind; version: string }> {
    const fresh = () => newRecord(this.limits.defaultBrowser);
    const record = caller.key ? (known ?? (await this.store.get(caller.key)) ?? fresh()) : fresh();
    const owner = caller.owner ?? 'anonymous';
    // Before the old browser ends: a refused caller keeps the one it had.
    await this.checkCap(owner, caller.key);
    if (caller.key && record.gridId) {
      this.ended(caller.key, record.gridId);
      this.events.emit({ type: 'browser_ended', workspace: caller.workspace ?? null, by: 'caller' });
      await this.grid.end(record.gridId).catch(() => undefined);
    }
    const browser = kind ?? record.browser;
    const size = { width: window.width ?? record.window.width, height: window.height ?? record.window.height };
    const opened = await this.opening.during(owner, () =>
      openWhileWanted(this.grid, browser, size, this.limits.slotWaitSeconds, caller.abandoned),
    );
    const now = new Date().toISOString();
    const saved: WorkspaceRecord = {
      browser,
      window: size,
      gridId: opened.gridId,
      capabilities: opened.capabilities,
      browserVersion: opened.version,
      openedAt: now,
      touchedAt: now,
      owner,
    };
    const handle = caller.key ? undefined : newHandle();
    const key = caller.key ?? handleKey(handle ?? '');
    try {
      await this.store.put(key, saved);
      if (caller.abandoned?.aborted) {
        throw abandonedError();
      }
    } catch (err) {
      // Nobody will ever hold this browser: end it now rather than when the Grid reaps it.
      await this.grid.end(opened.gridId).catch(() => undefined);
      await (caller.key ? this.detach(caller.key, saved, false) : this.store.delete(key)).catch(() => undefined);
      throw err;
    }
    this.events.emit({ type: 'browser_opened', workspace: caller.workspace ?? null, browser });
    return {
      ...this.driverFor(opened.gridId, opened.capabilities),
      ...(caller.key ? { record: saved } : { handle }),
      kind: browser,
      version: opened.version,
    };
  }

  /**
   * BROWSERS_PER_CALLER, counted over the shared store (so it holds across replicas). Records
   * can outlive browsers the Grid reaped: only live ones count before a caller is refused.
   */
  private async checkCap(owner: string, replacing: string | undefined): Promise<void> {
    const cap = this.limits.browsersPerCaller;
    const inFlight = this.opening.of(owner);
    const held = (await this.store.heldBy(owner)).filter(([key]) => key !== replacing);
    if (held.length + inFlight < cap) {
      return;
    }
    let alive = 0;
    for (const [key, record] of held) {
      if (await this.grid.isAlive(record.gridId).catch(() => true)) {
        alive += 1;
      } else {
        await (key.startsWith(HANDLE_PREFIX) ? this.store.delete(key) : this.detach(key, record));
      }
    }
    if (alive + inFlight >= cap) {
      throw new TooManyRequests(
        `You already hold ${alive + inFlight} open browsers, the most BROWSERS_PER_CALLER (${cap}) allows; end one with end_browser and call again.`,
      );
    }
  }

  /** `by`: who asked, for the operator's event stream (an agent, or an operator on the admin page) */
  async end(caller: Caller, sessionId: string | undefined, by: 'caller' | 'operator' = 'caller'): Promise<boolean> {
    const key = caller.key ?? (sessionId === undefined ? undefined : handleKey(sessionId));
    const record = key === undefined ? undefined : await this.store.get(key);
    if (!key || !record?.gridId || (!caller.key && record.owner !== (caller.owner ?? 'anonymous'))) {
      return false;
    }
    this.ended(key, record.gridId);
    await this.grid.end(record.gridId);
    await (caller.key ? this.detach(caller.key, record, false) : this.store.delete(key));
    this.events.emit({ type: 'browser_ended', workspace: caller.workspace ?? null, by });
    return true;
  }

  /**
   * Binds a driver to the caller's browser. A saved workspace without one gets one when
   * `openOnDemand` (acting tools); reads never open a browser.
   */
  async attach(caller: Caller, sessionId: string | undefined, openOnDemand: boolean): Promise<AttachedBrowser> {
    if (!caller.key) {
      const browser = await this.attachByHandle(caller, sessionId ?? '');
      if (!browser) {
        throw new NotFound(NO_SUCH_HANDLE);
      }
      return browser;
    }
    const record = await this.store.get(caller.key);
    const browser = record && this.attachRecorded(record);
    if (browser) {
      return browser;
    }
    if (!openOnDemand) {
      const name = caller.workspace ? `Workspace "${caller.workspace}"` : 'This workspace';
      throw new NotFound(`${name} has no browser; call open_session (or any acting tool) first.`);
    }
    return this.open(caller, undefined, {}, record);
  }

  /** A driver bound to the browser a record names; undefined when it names none. */
  private attachRecorded(record: WorkspaceRecord): AttachedBrowser | undefined {
    if (!record.gridId) {
      return undefined;
    }
    return { ...this.driverFor(record.gridId, record.capabilities ?? { browserName: record.browser }), record };
  }

  private driverFor(gridId: string, capabilities: Record<string, unknown>): AttachedBrowser {
    const devtools = this.grid.devtoolsAddress(capabilities);
    return {
      driver: this.grid.attach(gridId, capabilities),
      gridId,
      browserName: browserNameOf(capabilities),
      ...(devtools ? { devtools } : {}),
    };
  }

  /**
   * The browser a stateless handle names, for the caller that opened it only (another's
   * handle is as unknown as a guessed one). Each use slides the handle's TTL.
   */
  private async attachByHandle(caller: Caller, handle: string): Promise<AttachedBrowser | undefined> {
    const record = await this.handleRecord(caller, handle);
    if (!record) {
      return undefined;
    }
    await this.store.put(handleKey(handle), record);
    const browser = this.attachRecorded(record);
    return browser && { ...browser, record: undefined, handle };
  }

  private async handleRecord(caller: Caller, handle: string): Promise<WorkspaceRecord | undefined> {
    if (handle === '') {
      return undefined;
    }
    const record = await this.store.get(handleKey(handle));
    return record?.gridId && record.owner === (caller.owner ?? 'anonymous') ? record : undefined;
  }

  /** What a stateless caller's handle names, for current_workspace: kind, version, and whether it lives. */
  async describeHandle(
    caller: Caller,
    handle: string,
  ): Promise<{ kind: BrowserKind; version: string; alive: boolean } | undefined> {
    const record = await this.handleRecord(caller, handle);
    if (!record?.gridId) {
      return undefined;
    }
    return { kind: record.browser, version: record.browserVersion ?? '', alive: await this.isAlive(record.gridId) };
  }

  /** Records the last page and slides the TTL; a touch without a page keeps the last one. */
  async touch(key: string, page: SeenPage | undefined, known?: WorkspaceRecord): Promise<void> {
    const record = known ?? (await this.store.get(key));
    if (!record) {
      return;
    }
    if (page?.dialog) {
      record.dialog = true;
      // A navigation that opened one names the page it reached (a click's dialog names none).
      if (page.url) {
        record.url = page.url;
        record.title = page.title;
      }
    } else if (page) {
      record.url = page.url;
      record.title = page.title;
      delete record.dialog;
    }
    record.touchedAt = new Date().toISOString();
    await this.store.put(key, record);
  }

  /** Forgets the frame the caller entered, found gone: its next call acts on the top page. */
  async forgetFrame(caller: Caller, browser: AttachedBrowser): Promise<void> {
    if (browser.record && caller.key) {
      delete browser.record.frames;
      await this.touch(caller.key, undefined, browser.record);
    }
  }

  /**
   * Forgets the record's browser (found gone, or never to be held). What watches it is told it
   * ended, and the Grid's session is ended too (`tell`), unless the caller already did both.
   */
  async detach(key: string, known?: WorkspaceRecord, tell = true): Promise<void> {
    const record = known ?? (await this.store.get(key));
    if (!record) {
      return;
    }
    if (tell && record.gridId !== undefined) {
      this.ended(key, record.gridId);
      // A browser that crashed or was killed leaves its Grid session, and its slot, behind until
      // the Grid reaps it: the agent told to open_session would wait for a slot it cannot get.
      await this.grid.end(record.gridId).catch(() => undefined);
    }
    delete record.gridId;
    delete record.capabilities;
    delete record.browserVersion;
    delete record.openedAt;
    delete record.dialog;
    delete record.windows;
    delete record.frames;
    record.touchedAt = new Date().toISOString();
    await this.store.put(key, record);
  }

  /**
   * Where the caller's browser is, asked of the browser: the remembered page can be behind (a
   * flow step skips reading the page nobody reads). The remembered page when the browser cannot
   * answer (a dialog is open, it is gone); null when there is neither. With the record it read,
   * for a caller that remembers the page (touch) without reading it again.
   */
  async currentPage(
    caller: Caller,
    sessionId: string | undefined,
    readPage: (driver: WebDriver) => Promise<SeenPage>,
  ): Promise<{ page: SeenPage | null; record?: WorkspaceRecord }> {
    const record = caller.key ? await this.store.get(caller.key) : undefined;
    const remembered = record?.url === undefined ? null : { url: record.url, title: record.title ?? '' };
    try {
      const browser = record
        ? this.attachRecorded(record)
        : sessionId
          ? await this.attachByHandle(caller, sessionId)
          : undefined;
      const page = browser ? await readPage(browser.driver) : undefined;
      return { page: page && !page.dialog ? page : remembered, record };
    } catch {
      return { page: remembered, record };
    }
  }

  async isAlive(gridId: string): Promise<boolean> {
    return gridCall(() => this.grid.isAlive(gridId));
  }

  /** Whether the Grid still runs it, asked without counting as use (a held browser still idles out). */
  async isRunning(gridId: string): Promise<boolean> {
    return gridCall(() => this.grid.isRunning(gridId));
  }
}
