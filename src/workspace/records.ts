import type { BrowserKind } from '../grid/capabilities.js';
import type { RecentCall } from './recent.js';
import { ExpiringMap } from '../expiring-map.js';

/**
 * What the workspace reads of a page browser/ read (browser/page-state.ts declares it; the
 * workspace never reads a page itself): its address and title, and whether a dialog hid them.
 */
export interface SeenPage {
  url: string;
  title: string;
  dialog?: unknown;
}

/** What the server remembers about a saved workspace. Detached (no gridId) is ordinary. */

export interface WorkspaceRecord {
  browser: BrowserKind;
  window: { width: number; height: number };
  gridId?: string;
  /** What an attached driver must know about its browser (it cannot ask the Grid). */
  capabilities?: Record<string, unknown>;
  browserVersion?: string;
  url?: string;
  title?: string;
  /**
   * the last page read had a dialog open: the next call of a tool a dialog blocks asks the
   * browser whether it still is before running (a person may have answered it in the live view)
   */
  dialog?: true;
  /**
   * how many frames deep the caller went with the frame tool: chromedriver leaves a frame the
   * page removed without a word, so each call first checks the browser is still that deep
   */
  frames?: number;
  /**
   * The secrets typed into this browser, by name and key (never a value): another replica reads
   * their values to screen its answers about this browser too.
   */
  typedSecrets?: { name: string; key: string }[];
  /**
   * the browser's windows as last seen (browser/tabs.ts reads them): its tabs, and Chromium's
   * own UI windows, so an act names a tab it opened and current_workspace counts them
   */
  windows?: { tabs: string[]; ui: string[] };
  openedAt?: string;
  touchedAt: string;
  /** who opened the browser (a Principal's id): counts against BROWSERS_PER_CALLER, owns a stateless handle */
  owner?: string;
  /** the workspace's last successful calls, oldest first, for draft_flow (never a secret's value) */
  recent?: RecentCall[];
}

/** A record whose browser is open, with who opened it: what BROWSERS_PER_CALLER counts. */
export type HeldRecord = WorkspaceRecord & { gridId: string; owner: string };

export function holdsBrowserOf(record: WorkspaceRecord | undefined, owner: string): record is HeldRecord {
  return record?.gridId !== undefined && record.owner === owner;
}

/** The browser a record's capabilities name (the Grid's answer), chrome when they name none. */
export function browserNameOf(capabilities: Record<string, unknown>): string {
  return typeof capabilities.browserName === 'string' ? capabilities.browserName : 'chrome';
}

export const DEFAULT_WINDOW = { width: 1280, height: 900 };

export function newRecord(browser: BrowserKind = 'chrome'): WorkspaceRecord {
  return { browser, window: { ...DEFAULT_WINDOW }, touchedAt: new Date().toISOString() };
}

/**
 * The record store: async and remote-ready, so Redis can stand behind the same interface.
 * Every write slides the record's TTL.
 */
export interface RecordStore {
  get(key: string): Promise<WorkspaceRecord | undefined>;
  put(key: string, record: WorkspaceRecord): Promise<void>;
  delete(key: string): Promise<void>;
  /** Keys of every live record, for the admin page. */
  keys(): Promise<string[]>;
  /** Several records at once, in the order asked (a shared store answers them in a few round trips, not one each). */
  getMany(keys: readonly string[]): Promise<(WorkspaceRecord | undefined)[]>;
  /**
   * The records holding a browser `owner` opened, by key. Every store keeps an index per owner
   * (written with the record, checked against it when read), so opening a browser reads the
   * caller's own records, never every workspace remembered.
   */
  heldBy(owner: string): Promise<[string, HeldRecord][]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class MemoryRecordStore implements RecordStore {
  private readonly records: ExpiringMap<WorkspaceRecord>;
  /** per owner, the keys whose record held a browser of theirs when written (heldBy drops the rest) */
  private readonly owners = new Map<string, Set<string>>();

  constructor(
    private readonly ttlSeconds: number,
    now: () => number = Date.now,
  ) {
    this.records = new ExpiringMap(now);
  }

  async get(key: string): Promise<WorkspaceRecord | undefined> {
    const record = this.records.get(key);
    return record && structuredClone(record);
  }

  async getMany(keys: readonly string[]): Promise<(WorkspaceRecord | undefined)[]> {
    return Promise.all(keys.map((key) => this.get(key)));
  }

  async put(key: string, record: WorkspaceRecord): Promise<void> {
    this.records.set(key, structuredClone(record), this.ttlSeconds * 1000);
    if (record.gridId !== undefined && record.owner !== undefined) {
      const keys = this.owners.get(record.owner) ?? new Set<string>();
      this.owners.set(record.owner, keys.add(key));
    }
  }

  async heldBy(owner: string): Promise<[string, HeldRecord][]> {
    const keys = this.owners.get(owner) ?? new Set<string>();
    const held: [string, HeldRecord][] = [];
    for (const key of keys) {
      const record = await this.get(key);
      if (holdsBrowserOf(record, owner)) {
        held.push([key, record]);
      } else {
        keys.delete(key);
      }
    }
    if (keys.size === 0) {
      this.owners.delete(owner);
    }
    return held;
  }

  async delete(key: string): Promise<void> {
    this.records.delete(key);
  }

  async keys(): Promise<string[]> {
    return this.records.keys();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.records.clear();
    this.owners.clear();
  }
}
