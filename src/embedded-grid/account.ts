import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** The unprivileged account the Grid's JVMs and chromedrivers run as when the server runs as root. */
export const GRID_USER = 'selenium-flow-grid';
/** The group Chromium alone runs in: the firewall rule keys on it, so the Grid itself keeps its ports. */
export const BROWSER_GROUP = 'selenium-flow-browser';

const run = promisify(execFile);

/** Who the Grid runs as: undefined when the server is not root (then everything runs as its user). */
export interface GridAccount {
  uid: number;
  gid: number;
  browserGid: number;
}

/** The Grid's account and Chromium's group, created once (system account, no home, no shell). */
export async function gridAccount(): Promise<GridAccount> {
  if ((await lookup('group', BROWSER_GROUP)) === undefined) {
    await run('groupadd', ['--system', BROWSER_GROUP]);
  }
  if ((await lookup('passwd', GRID_USER)) === undefined) {
    await run('useradd', [
      '--system',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      '--groups',
      BROWSER_GROUP,
      GRID_USER,
    ]);
  }
  const members = (await lookup('group', BROWSER_GROUP))?.[3]?.split(',') ?? [];
  if (!members.includes(GRID_USER)) {
    // sg lets only a member of the group take it.
    await run('gpasswd', ['--add', GRID_USER, BROWSER_GROUP]);
  }
  const user = await lookup('passwd', GRID_USER);
  const group = await lookup('group', BROWSER_GROUP);
  return { uid: Number(user?.[2]), gid: Number(user?.[3]), browserGid: Number(group?.[2]) };
}

async function lookup(database: 'passwd' | 'group', name: string): Promise<string[] | undefined> {
  try {
    const { stdout } = await run('getent', [database, name]);
    return stdout.trim().split(':');
  } catch {
    return undefined;
  }
}

/** Whether the account can read `path`, asked as that account. */
export async function readableBy(account: GridAccount, path: string): Promise<boolean> {
  try {
    await run('setpriv', [
      '--reuid',
      String(account.uid),
      '--regid',
      String(account.gid),
      '--clear-groups',
      'test',
      '-r',
      path,
    ]);
    return true;
  } catch {
    return false;
  }
}
