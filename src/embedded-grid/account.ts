import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';

/** The unprivileged account the Grid's JVMs and chromedrivers run as when the server runs as root. */
export const GRID_USER = 'selenium-flow-grid';
/**
 * The groups the browsers alone run in, one per Grid running at once (`selenium-flow-browser-1`,
 * …): a Grid's firewall table keys on its own, so the Grid itself keeps its ports, and no other
 * Grid's table, nor its proxy's port, applies to these browsers (fence.ts).
 */
export const BROWSER_GROUP = 'selenium-flow-browser';
/** How many Grids one host runs as root at once (one browser group each). */
export const BROWSER_GROUPS = 32;

const exec = promisify(execFile);

/**
 * The shadow tools lock /etc/group while they write it: two Grids starting at once (each making
 * or joining a group) can find it locked. Each retries for a few seconds.
 */
async function run(command: string, args: string[]): Promise<{ stdout: string }> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await exec(command, args);
    } catch (error) {
      if (attempt >= 20 || !/lock/i.test(error instanceof Error ? error.message : '')) {
        throw error;
      }
      await delay(100 + Math.random() * 200);
    }
  }
}

/** Who the Grid runs as: undefined when the server is not root (then everything runs as its user). */
export interface GridAccount {
  uid: number;
  gid: number;
  /** the browsers' group of this Grid (fence.ts claims one per Grid); unset until claimed */
  browsers?: BrowserGroup;
}

export interface BrowserGroup {
  name: string;
  gid: number;
}

/** The Grid's account, created once (system account, no home, no shell). */
export async function gridAccount(): Promise<GridAccount> {
  if ((await lookup('passwd', GRID_USER)) === undefined) {
    await run('useradd', [
      '--system',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      GRID_USER,
    ]);
  }
  const user = await lookup('passwd', GRID_USER);
  return { uid: Number(user?.[2]), gid: Number(user?.[3]) };
}

/** Browser group `index` (1 to BROWSER_GROUPS), created once, with the Grid's account a member (sg lets only a member take it). */
export async function browserGroup(index: number): Promise<BrowserGroup> {
  const name = `${BROWSER_GROUP}-${index}`;
  if ((await lookup('group', name)) === undefined) {
    await run('groupadd', ['--system', name]).catch(async (error: unknown) => {
      // Another Grid starting at once made it first.
      if ((await lookup('group', name)) === undefined) {
        throw error;
      }
    });
  }
  const members = (await lookup('group', name))?.[3]?.split(',') ?? [];
  if (!members.includes(GRID_USER)) {
    await run('gpasswd', ['--add', GRID_USER, name]);
  }
  return { name, gid: Number((await lookup('group', name))?.[2]) };
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
