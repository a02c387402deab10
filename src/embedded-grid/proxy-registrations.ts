import { constants } from 'node:fs';
import { chmod, chown, mkdir, open, readdir, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * How a browser's wrapper asks the proxy (proxy.ts) for an address of its own, and gets one:
 * a file named by its pid in one directory, the answer in another.
 */

/**
 * The registration directory, `clientsDir`, holds two: REQUESTS, which the wrappers (the Grid's
 * account, as root) write and the proxy only lists and unlinks, and ANSWERS, which the proxy
 * alone writes and the wrappers only test for. The proxy runs as root: nothing it opens, creates
 * or removes may be where that account can put a symbolic link (`<pid>.ready` → /etc/shadow was
 * truncated, when both shared one directory of the Grid's).
 */
export const REQUESTS = 'requests';
export const ANSWERS = 'answers';

/**
 * A browser's own address: 127.0.0.0/8 is all this host's on Linux, and a pid (below 2^22) is
 * unique among live processes, so no two live browsers share one and none is 127.0.0.1.
 * BROWSER_ADDRESS_SH computes the same in the wrapper, from `$sf_pid`.
 */
export function browserAddress(pid: number): string {
  return `127.${(pid >> 16) + 1}.${(pid >> 8) & 255}.${pid & 255}`;
}
export const BROWSER_ADDRESS_SH =
  'sf_addr="127.$(( (sf_pid >> 16) + 1 )).$(( (sf_pid >> 8) & 255 )).$(( sf_pid & 255 ))"';
export const PID = /^[1-9][0-9]{0,6}$/;
export const MAX_PID = 2 ** 22;

/**
 * The two directories under `clientsDir` (mkdtemp's, 0700, this process's). Under the Grid's
 * account (as root): `clientsDir` and ANSWERS 0710 root:<its group>, so its wrappers may pass
 * through and test for an answer but neither list nor write; REQUESTS 0700, the account's own.
 */
export async function registrationDirs(
  clientsDir: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  const requests = join(clientsDir, REQUESTS);
  const answers = join(clientsDir, ANSWERS);
  await mkdir(requests, { mode: 0o700 });
  await mkdir(answers, { mode: 0o700 });
  if (owner) {
    await chown(requests, owner.uid, owner.gid);
    for (const dir of [clientsDir, answers]) {
      await chown(dir, -1, owner.gid);
      await chmod(dir, 0o710);
    }
  }
}

/**
 * Writes an answer in ANSWERS as a new file: whatever was there is unlinked first (a link itself,
 * never what it names), and O_EXCL | O_NOFOLLOW fail rather than follow one put back between
 * the two. Only the proxy writes ANSWERS under the Grid's account; as the server's own user the
 * wrappers share its rights, and still no link is followed.
 */
export async function answer(path: string, text: string): Promise<void> {
  try {
    await unlink(path).catch(() => undefined);
    const file = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await file.writeFile(text);
    } finally {
      await file.close();
    }
  } catch {
    // The wrapper waits its bounded time and refuses to start the browser unfenced.
  }
}

/**
 * Removes the registration directories. ANSWERS is the proxy's own. REQUESTS is the Grid's
 * account's: only its entries are unlinked (a link itself, never what it names) and its empty
 * directories removed; a directory there is never descended into, since the account could swap
 * it for a link between a check and the descent. What it left stays, in its own directory.
 */
export async function removeRegistrations(clientsDir: string): Promise<void> {
  const requests = join(clientsDir, REQUESTS);
  const entries = await readdir(requests).catch(() => []);
  await Promise.all(
    entries.map((name) => unlink(join(requests, name)).catch(() => rmdir(join(requests, name)).catch(() => undefined))),
  );
  await rm(join(clientsDir, ANSWERS), { recursive: true, force: true });
  await rmdir(requests).catch(() => undefined);
  await rmdir(clientsDir).catch(() => undefined);
}

/** Whether a process runs: signal 0 checks without sending (EPERM: it runs, as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}
