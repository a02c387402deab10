import { SeleniumFlowError } from '../errors.js';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import { sessionNodes, type GridNode, type GridStatusReading } from '../grid/status.js';
import type { WorkspaceRecord } from '../workspace/records.js';
import type { BrowserBlock, BrowserState, WorkspaceRow } from './schemas.js';

/* The parts of a workspace's row that need only its record and the Grid's status. */

/** What a section holds: how many files, and their bytes. */
export interface Measured {
  count: number;
  bytes: number;
}

export function measure(files: readonly { size: number }[]): Measured {
  return { count: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0) };
}

export function stateOf(record: WorkspaceRecord | undefined, status: GridStatusReading): BrowserState {
  if (!record?.gridId) {
    return 'none';
  }
  if (!status.reachable) {
    return 'unknown';
  }
  return sessionNodes(status).has(record.gridId) ? 'live' : 'reaped';
}

export function browserBlockOf(
  record: WorkspaceRecord | undefined,
  state: BrowserState,
  status: GridStatusReading,
): BrowserBlock {
  if (!record) {
    return null;
  }
  const node: GridNode | undefined = record.gridId ? sessionNodes(status).get(record.gridId) : undefined;
  return {
    kind: record.browser,
    version: record.browserVersion ?? null,
    window: { ...record.window },
    started: record.openedAt ?? null,
    grid_id: record.gridId ?? null,
    node: state === 'live' && node ? { id: node.id, availability: node.availability } : null,
  };
}

export function newest(files: { created: string }[]): string | null {
  return files.reduce<string | null>((latest, f) => (latest === null || f.created > latest ? f.created : latest), null);
}

export function problemRow(name: string, problem: string): WorkspaceRow {
  return {
    name,
    global: name === GLOBAL_LIBRARY,
    state: 'unknown',
    last_page: null,
    counts: { downloads: null, screenshots: null, files: null, flows: null },
    bytes: { downloads: null, screenshots: null, files: null, flows: null },
    disk: null,
    last_activity: null,
    problem,
  };
}

/** Our own errors carry a remedy fit to show; anything else is said without its text (it may quote a path). */
export function problemOf(err: unknown): string {
  return err instanceof SeleniumFlowError
    ? err.message
    : 'This workspace could not be read (an unexpected error; the server log has its type); the other rows are whole.';
}
