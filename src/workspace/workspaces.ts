import type { WebDriver } from 'selenium-webdriver';
import { readPageState, type PageState } from '../browser/page-state.js';
import { NotFound } from '../errors.js';
import type { BrowserKind } from '../grid/capabilities.js';
import { type Grid, gridCall, sessionCapabilities } from '../grid/grid.js';
import type { Caller } from './caller.js';
import { newRecord, type RecordStore, type WorkspaceRecord } from './records.js';

export interface AttachedBrowser {
  driver: WebDriver;
  gridId: string;
  browserName: string;
  /** a saved workspace's record as this call found (or wrote) it: calls on it take turns, so it stays current */
  record?: WorkspaceRecord;
}

/**
 * Workspaces and the browsers they hold. The server holds no browser: a record says which
 * Grid id a workspace has, and a driver is bound to it locally for each call.
 */
export class Workspaces {
  // Stateless callers carry only an id; what the Grid told us about it saves a lookup per call.
  private readonly knownCapabilities = new Map<string, Record<string, unknown>>();

  constructor(
    readonly grid: Grid,
    readonly store: RecordStore,
  ) {}

  async record(key: string): Promise<WorkspaceRecord | undefined> {
    return this.store.get(key);
  }

  /** Opens a browser; a saved workspace's previous browser is ended first. */
  async open(caller: Caller, kind: BrowserKind | undefined, window: { width?: number; height?: number }, known?: WorkspaceRecord): Promise<AttachedBrowser> {
    const record = caller.key ? (known ?? (await this.store.get(caller.key)) ?? newRecord()) : newRecord();
    if (caller.key && record.gridId) {
      await this.grid.end(record.gridId).catch(() => undefined);
    }
    const browser = kind ?? record.browser;
    const size = { width: window.width ?? record.window.width, height: window.height ?? record.window.height };
    const opened = await this.grid.open(browser, size);
    this.remember(opened.gridId, opened.capabilities);
    const now = new Date().toISOString();
    const saved: WorkspaceRecord = {
      browser,
      window: size,
      gridId: opened.gridId,
      capabilities: opened.capabilities,
      browserVersion: opened.version,
      openedAt: now,
      touchedAt: now,
    };
    if (caller.key) {
      await this.store.put(caller.key, saved);
    }
    const driver = this.grid.attach(opened.gridId, opened.capabilities);
    return { driver, gridId: opened.gridId, browserName: browserNameOf(opened.capabilities), ...(caller.key ? { record: saved } : {}) };
  }

  async end(caller: Caller, sessionId: string | undefined): Promise<boolean> {
    if (!caller.key) {
      if (!sessionId) {
        return false;
      }
      // The Grid answers a DELETE of an id it never had as if it had ended it: ask first.
      if (!this.knownCapabilities.has(sessionId) && !(await sessionCapabilities(this.grid.url, sessionId))) {
        return false;
      }
      this.knownCapabilities.delete(sessionId);
      await this.grid.end(sessionId);
      return true;
    }
    const record = await this.store.get(caller.key);
    if (!record?.gridId) {
      return false;
    }
    await this.grid.end(record.gridId);
    await this.detach(caller.key, record);
    return true;
  }

  /**
   * Binds a driver to the caller's browser. A saved workspace without one gets one when
   * `openOnDemand` (acting tools); reads never open a browser.
   */
  async attach(caller: Caller, sessionId: string | undefined, openOnDemand: boolean): Promise<AttachedBrowser> {
    if (!caller.key) {
      return this.attachById(sessionId ?? '');
    }
    const record = await this.store.get(caller.key);
    if (!record?.gridId && openOnDemand) {
      return this.open(caller, undefined, {}, record);
    }
    const browser = record && this.attachRecorded(record);
    if (!browser) {
      const name = caller.workspace ? `Workspace "${caller.workspace}"` : 'This workspace';
      throw new NotFound(`${name} has no browser; call open_session (or any acting tool) first.`);
    }
    return browser;
  }

  /** A driver bound to the browser a record names; undefined when it names none. */
  private attachRecorded(record: WorkspaceRecord): AttachedBrowser | undefined {
    if (!record.gridId) {
      return undefined;
    }
    const capabilities = record.capabilities ?? { browserName: record.browser };
    return { driver: this.grid.attach(record.gridId, capabilities), gridId: record.gridId, browserName: browserNameOf(capabilities), record };
  }

  private async attachById(gridId: string): Promise<AttachedBrowser> {
    const capabilities = await this.capabilitiesOf(gridId);
    if (!capabilities) {
      throw new NotFound('No browser with that session_id on the Grid (ended, reaped, or never opened); call open_session for a new one.');
    }
    return { driver: this.grid.attach(gridId, capabilities), gridId, browserName: browserNameOf(capabilities) };
  }

  /** What the Grid told us about a browser known only by its id, asked once; undefined: no such browser. */
  private async capabilitiesOf(gridId: string): Promise<Record<string, unknown> | undefined> {
    const known = this.knownCapabilities.get(gridId);
    if (known) {
      return known;
    }
    const capabilities = await sessionCapabilities(this.grid.url, gridId);
    if (capabilities) {
      this.remember(gridId, capabilities);
    }
    return capabilities;
  }

  /** Records the last page and slides the TTL; a touch without a page keeps the last one. */
  async touch(key: string, page: PageState | undefined, known?: WorkspaceRecord): Promise<void> {
    const record = known ?? (await this.store.get(key));
    if (!record) {
      return;
    }
    if (page && !page.dialog) {
      record.url = page.url;
      record.title = page.title;
    }
    record.touchedAt = new Date().toISOString();
    await this.store.put(key, record);
  }

  async detach(key: string, known?: WorkspaceRecord): Promise<void> {
    const record = known ?? (await this.store.get(key));
    if (!record) {
      return;
    }
    if (record.gridId) {
      this.knownCapabilities.delete(record.gridId);
    }
    delete record.gridId;
    delete record.capabilities;
    delete record.browserVersion;
    record.touchedAt = new Date().toISOString();
    await this.store.put(key, record);
  }

  /**
   * Where the caller's browser is, asked of the browser: the remembered page can be behind (a
   * flow step skips reading the page nobody reads). The remembered page when the browser cannot
   * answer (a dialog is open, it is gone); null when there is neither. With the record it read,
   * for a caller that remembers the page (touch) without reading it again.
   */
  async currentPage(caller: Caller, sessionId: string | undefined): Promise<{ page: PageState | null; record?: WorkspaceRecord }> {
    const record = caller.key ? await this.store.get(caller.key) : undefined;
    const remembered = record?.url === undefined ? null : { url: record.url, title: record.title ?? '' };
    try {
      const browser = record ? this.attachRecorded(record) : sessionId ? await this.attachById(sessionId) : undefined;
      const page = browser ? await readPageState(browser.driver) : undefined;
      return { page: page && !page.dialog ? page : remembered, record };
    } catch {
      return { page: remembered, record };
    }
  }

  /** What a browser known only by its id is, from what the Grid told us about it. */
  async kindOf(gridId: string): Promise<{ kind: BrowserKind; version: string }> {
    const capabilities = (await this.capabilitiesOf(gridId)) ?? {};
    const version = typeof capabilities.browserVersion === 'string' ? capabilities.browserVersion : '';
    return { kind: browserNameOf(capabilities) === 'firefox' ? 'firefox' : 'chrome', version };
  }

  async isAlive(gridId: string): Promise<boolean> {
    return gridCall(() => this.grid.isAlive(gridId));
  }

  private remember(gridId: string, capabilities: Record<string, unknown>): void {
    // Bounded: an id that stops being used falls out after a while.
    if (this.knownCapabilities.size > 1000) {
      const oldest = this.knownCapabilities.keys().next().value;
      if (oldest !== undefined) {
        this.knownCapabilities.delete(oldest);
      }
    }
    this.knownCapabilities.set(gridId, capabilities);
  }
}

function browserNameOf(capabilities: Record<string, unknown>): string {
  return typeof capabilities.browserName === 'string' ? capabilities.browserName : 'chrome';
}
