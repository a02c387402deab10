import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InsufficientStorage } from './errors.js';

/**
 * Every file the server keeps (flows, Files, screenshots, kept downloads, their marks) is written
 * here: whole or not at all. Bytes go to a temp file in the directory they will live in (one
 * filesystem, so the rename is atomic), are flushed to the disk (fsync) before the rename, and the
 * directory is flushed after it, so a crash or a full disk leaves the old file or the new one, never
 * half of one. A full disk is a 507 that says so; the temp file it left goes.
 */

/** What a save answers when the data directory's disk is full: an agent's remedy is its operator's act. */
export const DISK_FULL =
  "The server's disk (its data directory, FLOW_DATA_DIR) is full: nothing was saved, and nothing saved before changed; tell the server's operator to free space there, then call again.";

/** ENOSPC (no space) and EDQUOT (the OS user's disk quota) as our 507; any other error as it is. */
export function diskFullOr(err: unknown): unknown {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return code === 'ENOSPC' || code === 'EDQUOT' ? new InsufficientStorage(DISK_FULL) : err;
}

/** Runs a write, a full disk answered as the 507. */
export async function onDisk<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw diskFullOr(err);
  }
}

/**
 * Writes `bytes` to a new temp file in `dir` (created if missing) and flushes it; answers its path.
 * A failure removes what it wrote. `prefix`: a dot name keeps it out of every listing.
 */
export async function writeTemp(dir: string, bytes: Uint8Array | string, prefix = '.incoming-'): Promise<string> {
  return onDisk(async () => {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${prefix}${randomUUID()}.tmp`);
    const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
      await handle.close();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await rm(path, { force: true });
      throw err;
    }
    return path;
  });
}

/** Writes a file whole: a temp file beside it, then a rename over it (a reader sees the old bytes or the new). */
export async function writeWhole(path: string, bytes: Uint8Array | string, dir: string): Promise<void> {
  const temp = await writeTemp(dir, bytes);
  try {
    await onDisk(() => rename(temp, path));
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

/**
 * Flushes a directory's entries (a rename or link into it) to the disk. Best effort: a filesystem
 * that cannot fsync a directory (some network mounts) still renamed atomically.
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY).catch(() => undefined);
  if (handle) {
    await handle.sync().catch(() => undefined);
    await handle.close().catch(() => undefined);
  }
}
