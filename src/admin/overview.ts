import { NotFound } from '../errors.js';
import type { FileEntry, Files, WorkspaceSections } from '../files/files.js';
import { checkLibrary } from './flows.js';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import { isWorkspaceOrStdio, STDIO_WORKSPACE as STDIO_LIBRARY } from '../workspace/names.js';
import type { FlowStore } from '../flows/store.js';
import { readGridStatus, sessionNodes, type GridStatusReading } from '../grid/status.js';
import { gridAnswer } from './grid-answer.js';
import type {
  BrowserState,
  GridStatus,
  WorkspaceDetail,
  WorkspaceList,
  WorkspaceRow,
  WorkspaceUsage,
} from './schemas.js';
import { browserBlockOf, measure, newest, problemOf, problemRow, stateOf, type Measured } from './workspace-row.js';
import { callerOfWorkspace, workspaceOfKey } from '../workspace/caller.js';
import type { WorkspaceRecord } from '../workspace/records.js';
import type { Workspaces } from '../workspace/workspaces.js';

/** The listing is bounded: past this many workspaces the rest are counted, not listed. */
export const MAX_LISTED_WORKSPACES = 1000;
/** Rows are read this many at a time: each may ask the Grid and the disk. */
const ROW_CONCURRENCY = 8;
/**
 * Downloads may still land this long after the call that started them: until then the listing
 * asks the browser's node on every read; after it, once more, and then not until the next call.
 */
export const DOWNLOADS_SETTLE_MS = 30_000;
/** A download list read this long ago is read again: its signed links must not expire on the page. */
const DOWNLOADS_RELIST_MS = 10 * 60 * 1000;

export interface OverviewParts {
  workspaces: Workspaces;
  files: Files;
  /** undefined: flows are off (no data directory) */
  flowStore: FlowStore | undefined;
  /** WORKSPACE_DISK_QUOTA in bytes; undefined: none */
  diskQuota?: number;
}

/**
 * Every workspace as an operator sees it: each one with a record or a library directory, its
 * browser's state, last page, counts and last activity. A row that cannot be read is listed
 * with its problem; it never takes the listing down.
 */
export class WorkspaceOverview {
  /**
   * A live browser's download count by Grid id, with the call it was counted after. Asking the
   * node counts as use of the browser on the Grid, so a listing polled every few seconds would
   * keep an idle browser from ever timing out; this lets it idle (docs/admin.md).
   */
  private readonly downloadCounts = new Map<string, { touchedAt: string; countedAt: number } & Measured>();

  /**
   * A live browser's downloads as the Files tab and a workspace's page last read them, by Grid
   * id: the same rule as the count (ask the node only near the workspace's last call), since
   * those pages poll every few seconds while open.
   */
  private readonly downloadLists = new Map<string, { touchedAt: string; countedAt: number; entries: FileEntry[] }>();

  constructor(private readonly parts: OverviewParts) {}

  /**
   * A workspace's downloads, screenshots and Files, for the admin page: screenshots and Files
   * from the disk on every read; downloads from the browser's node while they may still land
   * (DOWNLOADS_SETTLE_MS after its last call), once more after, and then as last read — until
   * the next call, the browser ending, or the list's links nearing their expiry.
   */
  async sections(rawName: string): Promise<WorkspaceSections> {
    const name = checkLibrary(rawName);
    const record = await this.recordOf(name);
    const gridId = record?.gridId;
    const known = gridId ? this.downloadLists.get(gridId) : undefined;
    if (
      record &&
      known &&
      known.touchedAt === record.touchedAt &&
      known.countedAt - Date.parse(record.touchedAt) > DOWNLOADS_SETTLE_MS &&
      Date.now() - known.countedAt < DOWNLOADS_RELIST_MS
    ) {
      // Still running? The Grid's status says so without touching the browser.
      if (stateOf(record, await this.gridStatus()) === 'live') {
        const stored = await this.parts.files.stored(name);
        return { workspace: name, browser: true, downloads: known.entries, ...stored };
      }
    }
    const files = await this.parts.files.sections(name);
    // A browser without managed downloads is never asked: nothing to keep from asking again.
    if (gridId && files.browser && files.downloads_off === undefined) {
      this.downloadLists.set(gridId, { touchedAt: record.touchedAt, countedAt: Date.now(), entries: files.downloads });
    } else if (gridId) {
      this.downloadLists.delete(gridId);
    }
    return files;
  }

  async list(): Promise<WorkspaceList> {
    const [status, names] = await Promise.all([this.gridStatus(), this.names()]);
    const listed = names.slice(0, MAX_LISTED_WORKSPACES);
    const workspaces = await mapLimited(listed, ROW_CONCURRENCY, (name) =>
      this.row(name, status).catch((err: unknown) => problemRow(name, problemOf(err))),
    );
    this.forgetEnded(status);
    return {
      count: workspaces.length,
      truncated: names.length - listed.length,
      grid: status.reachable,
      workspaces,
    };
  }

  async detail(rawName: string): Promise<WorkspaceDetail> {
    const name = checkLibrary(rawName);
    const [status, record, directories] = await Promise.all([
      this.gridStatus(),
      this.recordOf(name),
      this.parts.files.directories(),
    ]);
    if (!record && !directories.includes(name) && name !== GLOBAL_LIBRARY) {
      throw new NotFound(
        `No workspace named ${name} (no record and no library directory); GET /admin/api/workspaces lists them.`,
      );
    }
    const files = await this.sections(name);
    const state = stateOf(record, status);
    const downloads =
      state === 'live' && files.browser && files.downloads_off === undefined ? measure(files.downloads) : null;
    if (record?.gridId && downloads !== null) {
      this.downloadCounts.set(record.gridId, { touchedAt: record.touchedAt, countedAt: Date.now(), ...downloads });
    }
    const row = await this.rowOf(name, record, state, files, downloads);
    return { ...row, browser: browserBlockOf(record, row.state, status), files };
  }

  /** What a workspace holds, counted and measured as its listing row shows it (for a deletion's answer). */
  async usage(rawName: string): Promise<WorkspaceUsage> {
    const name = checkLibrary(rawName);
    const { counts, bytes } = await this.row(name, await this.gridStatus());
    return { counts, bytes };
  }

  /** The Grid's nodes, slots and sessions, each session with the workspace that holds it. */
  async grid(): Promise<GridStatus> {
    const [status, holders] = await Promise.all([this.gridStatus(), this.holders()]);
    return gridAnswer(status, holders);
  }

  /** Grid id → the named workspace whose record holds it. */
  private async holders(): Promise<Map<string, string>> {
    const holders = new Map<string, string>();
    const names = (await this.names()).slice(0, MAX_LISTED_WORKSPACES).filter((n) => n !== GLOBAL_LIBRARY);
    await mapLimited(names, ROW_CONCURRENCY, async (name) => {
      const gridId = (await this.recordOf(name).catch(() => undefined))?.gridId;
      if (gridId) {
        holders.set(gridId, name);
      }
    });
    return holders;
  }

  /** Names from the record store (named workspaces and stdio) and the data directory, global first. */
  private async names(): Promise<string[]> {
    const [keys, directories] = await Promise.all([
      this.parts.workspaces.store.keys().catch((): string[] => []),
      this.parts.files.directories().catch((): string[] => []),
    ]);
    const names = new Set(directories);
    for (const key of keys) {
      const name = workspaceOfKey(key);
      if (name !== undefined) {
        names.add(name);
      }
    }
    return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }

  private async row(name: string, status: GridStatusReading): Promise<WorkspaceRow> {
    if (!isWorkspaceOrStdio(name)) {
      return problemRow(
        name,
        'This directory under FLOW_DATA_DIR is not a valid workspace name, so no caller can reach it; rename or remove it.',
      );
    }
    const record = await this.recordOf(name);
    const state = stateOf(record, status);
    const [files, downloads] = await Promise.all([
      this.parts.files.stored(name),
      state === 'live' ? this.downloadCount(name, record) : null,
    ]);
    return this.rowOf(name, record, state, files, downloads);
  }

  /** The live browser's downloads, counted and measured: from its node while they may still land, else as last read. */
  private async downloadCount(name: string, record: WorkspaceRecord | undefined): Promise<Measured | null> {
    const gridId = record?.gridId;
    if (!gridId) {
      return null;
    }
    const known = this.downloadCounts.get(gridId);
    const settled = (at: number) => at - Date.parse(record.touchedAt) > DOWNLOADS_SETTLE_MS;
    if (known && known.touchedAt === record.touchedAt && settled(known.countedAt)) {
      return { count: known.count, bytes: known.bytes };
    }
    const listing = await this.parts.files.folder(name, 'downloads');
    if (!listing.browser || listing.downloads_off !== undefined) {
      return null;
    }
    const measured = measure(listing.files);
    this.downloadCounts.set(gridId, { touchedAt: record.touchedAt, countedAt: Date.now(), ...measured });
    return measured;
  }

  /** Counts of browsers the Grid no longer runs go: the map holds at most the live ones. */
  private forgetEnded(status: GridStatusReading): void {
    if (!status.reachable) {
      return;
    }
    const live = sessionNodes(status);
    for (const gridId of [...this.downloadCounts.keys(), ...this.downloadLists.keys()]) {
      if (!live.has(gridId)) {
        this.downloadCounts.delete(gridId);
        this.downloadLists.delete(gridId);
      }
    }
  }

  private async rowOf(
    name: string,
    record: WorkspaceRecord | undefined,
    state: BrowserState,
    files: Pick<WorkspaceSections, 'screenshots' | 'files'>,
    downloads: Measured | null,
  ): Promise<WorkspaceRow> {
    const flows = this.parts.flowStore ? await this.parts.flowStore.usage(name) : null;
    const onDisk = this.parts.files.enabled;
    const screenshots = onDisk ? measure(files.screenshots) : null;
    const stored = onDisk ? measure(files.files) : null;
    return {
      name,
      global: name === GLOBAL_LIBRARY,
      state,
      last_page: record?.url === undefined ? null : { url: record.url, title: record.title ?? '' },
      counts: {
        downloads: downloads?.count ?? null,
        screenshots: screenshots?.count ?? null,
        files: stored?.count ?? null,
        flows: flows?.count ?? null,
      },
      bytes: {
        downloads: downloads?.bytes ?? null,
        screenshots: screenshots?.bytes ?? null,
        files: stored?.bytes ?? null,
        flows: flows?.bytes ?? null,
      },
      // What the quota measures (quotas/disk.ts): the same three sizes.
      disk: onDisk
        ? {
            used: (screenshots?.bytes ?? 0) + (stored?.bytes ?? 0) + (flows?.bytes ?? 0),
            quota: name === GLOBAL_LIBRARY ? null : (this.parts.diskQuota ?? null),
          }
        : null,
      last_activity: record?.touchedAt ?? newest([...files.screenshots, ...files.files]),
    };
  }

  private async recordOf(name: string): Promise<WorkspaceRecord | undefined> {
    return name === GLOBAL_LIBRARY ? undefined : this.parts.workspaces.record(callerOfWorkspace(name).key);
  }

  private gridStatus(): Promise<GridStatusReading> {
    return readGridStatus(this.parts.workspaces.grid.url);
  }
}

/** global first, then stdio, then the rest by name */
function rank(name: string): number {
  return name === GLOBAL_LIBRARY ? 0 : name === STDIO_LIBRARY ? 1 : 2;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  // One iterator shared by the workers: each takes the next item when it is free.
  const queue = items.entries();
  const worker = async () => {
    for (const [index, item] of queue) {
      results[index] = await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
