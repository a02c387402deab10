import { QuotaExceeded } from '../errors.js';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import { LocalTurns } from '../workspace/turns.js';

/**
 * Runs `fn` alone among every other `fn` of the same key, whichever replica runs it: the turns
 * of workspace/turns.ts (in this process, or in Redis for replicas sharing it).
 */
export type Exclusive = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

/** What a workspace may keep on the server's disk, and the one door every save goes through. */
export interface WorkspaceRoom {
  /**
   * Runs `write` alone among the saves of `workspace` (its files and its flows), once `adding`
   * bytes more, less what `replacing` frees (the file or flow it replaces), fit the workspace's
   * quota; otherwise refuses with a 409 naming the quota, and nothing is written. Measuring and
   * writing under one turn is what keeps two racing saves from both fitting in the room for one.
   */
  take<T>(workspace: string, adding: number, write: () => Promise<T>, replacing?: () => Promise<number>): Promise<T>;
}

export interface DiskQuotaOptions {
  /** WORKSPACE_DISK_QUOTA in bytes; undefined: no quota (saves are still taken one at a time) */
  limitBytes: number | undefined;
  exclusive: Exclusive;
  /** what the workspace keeps on disk now: its Screenshots, Files and flows, in bytes */
  used(workspace: string): Promise<number>;
}

/** The turn a workspace's saves take: beside, never the same as, its browser's (workspace:…). */
export function roomKey(workspace: string): string {
  return `room:${workspace}`;
}

export class DiskQuota implements WorkspaceRoom {
  constructor(private readonly options: DiskQuotaOptions) {}

  get limitBytes(): number | undefined {
    return this.options.limitBytes;
  }

  async take<T>(
    workspace: string,
    adding: number,
    write: () => Promise<T>,
    replacing?: () => Promise<number>,
  ): Promise<T> {
    return this.options.exclusive(roomKey(workspace), async () => {
      const limit = this.options.limitBytes;
      // global is the operators' library: its flows are bounded by count, not by a workspace's quota.
      if (limit !== undefined && workspace !== GLOBAL_LIBRARY) {
        const [used, freed] = await Promise.all([this.options.used(workspace), replacing?.() ?? 0]);
        // A save that frees as much as it takes (a move, a smaller replacement) is never refused.
        if (adding > freed && used - freed + adding > limit) {
          throw new QuotaExceeded(quotaSentence(workspace, used, adding, limit));
        }
      }
      return write();
    });
  }
}

/** No quota, but saves still one at a time per workspace in this process (a flow library's count is checked inside). */
export function unlimitedRoom(): WorkspaceRoom {
  const turns = new LocalTurns();
  return new DiskQuota({ limitBytes: undefined, exclusive: (key, fn) => turns.run(key, fn), used: async () => 0 });
}

function quotaSentence(workspace: string, used: number, adding: number, limit: number): string {
  const quota = `its quota (WORKSPACE_DISK_QUOTA) is ${size(limit)}`;
  if (adding > limit) {
    return `This save (${size(adding)}) is larger than workspace ${workspace}'s whole room on the server's disk: ${quota}, so nothing was saved; save something smaller, or ask the server's operator to raise WORKSPACE_DISK_QUOTA.`;
  }
  return `Workspace ${workspace} keeps ${size(used)} on the server's disk and ${quota}: this save (${size(adding)}) would pass it, so nothing was saved; free room by deleting flows it no longer needs (delete_flow) or by asking an operator to delete its files or clear its screenshots on the admin page, then call again.`;
}

/** A size as a person reads it, in the units WORKSPACE_DISK_QUOTA is set in: "200 KiB", "1.5 MiB". */
export function size(bytes: number): string {
  if (bytes < 1024) {
    return `${bytes} bytes`;
  }
  return bytes < 2 ** 20 ? `${Math.round(bytes / 1024)} KiB` : `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
}
