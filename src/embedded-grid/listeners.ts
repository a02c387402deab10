import { readdir, readFile, readlink } from 'node:fs/promises';
import { GRID_USER } from './account.js';
import { liveInstances, type InstanceEntry } from './neighbours.js';

/*
 * Whose is a port of this host: before a fence opens a port BROWSER_LOOPBACK_PORTS opens, it asks
 * who listens there, and refuses any selenium-flow instance's, its own included (neighbours.ts).
 */

interface Listener {
  uid: number;
  inode: string;
}

/** The sockets listening on `port` (any address), from the kernel's tables every user may read. */
export async function listenersOn(port: number): Promise<Listener[]> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const tables = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFile(file, 'utf8').catch(() => '')),
  );
  return tables.flatMap((table) =>
    table
      .split('\n')
      .slice(1)
      .flatMap((line) => {
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        const [, local = '', , state, , , , uid = '', , inode = ''] = line.trim().split(/\s+/);
        return state === '0A' && local.endsWith(hex) ? [{ uid: Number(uid), inode }] : [];
      }),
  );
}

let gridUser: Promise<number | undefined> | undefined;

/** The uid of the account every root Grid runs as (account.ts), from /etc/passwd, where useradd put it. */
function gridUid(): Promise<number | undefined> {
  gridUser ??= readFile('/etc/passwd', 'utf8').then(
    (text) => {
      const line = text.split('\n').find((l) => l.startsWith(`${GRID_USER}:`));
      const uid = Number(line?.split(':')[2]);
      return Number.isInteger(uid) ? uid : undefined;
    },
    () => undefined,
  );
  return gridUser;
}

/**
 * Why the browsers may not open `port` of this host although BROWSER_LOOPBACK_PORTS opens it: a
 * selenium-flow instance listens there (its own or another's). Undefined when none does.
 */
export async function instanceRefusal(port: number): Promise<string | undefined> {
  const listeners = await listenersOn(port);
  if (listeners.length === 0) {
    return undefined;
  }
  const closed = `port ${port} of this host is`;
  const grid = await gridUid();
  if (listeners.some((l) => l.uid === grid)) {
    return `${closed} a selenium-flow Grid's (${GRID_USER}: a Grid, driver, browser or display), never open to the browsers`;
  }
  const instances = await liveInstances();
  if (instances.some((i) => i.ports.includes(port))) {
    return `${closed} a selenium-flow server's or fence's, never open to the browsers`;
  }
  const me = process.geteuid?.() ?? 0;
  // Another ordinary user's instance: its processes are closed to this one, so every port of that user is refused.
  const hidden = instances.filter((i) => me !== 0 && i.uid !== me && i.uid !== 0);
  if (listeners.some((l) => hidden.some((i) => i.uid === l.uid))) {
    return `${closed} held by another user who runs selenium-flow, never open to these browsers`;
  }
  const visible = instances.filter((i) => me === 0 || i.uid === me);
  if (await heldByGrids(listeners, visible)) {
    return `${closed} a selenium-flow Grid's (a Grid, driver, browser or display), never open to the browsers`;
  }
  return undefined;
}

/**
 * Whether each listening socket (by inode) is a Grid's. A socket's owner never changes: a Grid's
 * stays one. A socket found in no Grid is asked again after a while, in case its instance had
 * not yet said so (an instance's entry is read at most every second).
 */
const verdicts = new Map<string, { held: Promise<boolean>; at: number; settled?: boolean }>();
const MAX_VERDICTS = 4_096;
const NOT_HELD_TTL_MS = 5_000;

async function heldByGrids(listeners: Listener[], instances: InstanceEntry[], now = Date.now()): Promise<boolean> {
  for (const { inode } of listeners) {
    const verdict = verdicts.get(inode);
    if (verdict?.settled === false && now - verdict.at > NOT_HELD_TTL_MS) {
      verdicts.delete(inode);
    }
  }
  const unknown = listeners.map((l) => l.inode).filter((inode) => !verdicts.has(inode));
  if (unknown.length > 0) {
    if (verdicts.size + unknown.length > MAX_VERDICTS) {
      verdicts.clear();
    }
    const held = gridSockets(instances.flatMap((i) => i.roots));
    for (const inode of unknown) {
      const verdict: { held: Promise<boolean>; at: number; settled?: boolean } = {
        held: Promise.resolve(false),
        at: now,
      };
      verdict.held = held.then((sockets) => (verdict.settled = sockets.has(inode)));
      verdicts.set(inode, verdict);
    }
  }
  const answers = await Promise.all(listeners.map((l) => verdicts.get(l.inode)?.held ?? Promise.resolve(false)));
  return answers.some(Boolean);
}

/** The socket inodes every process descending from `roots` holds. */
async function gridSockets(roots: number[]): Promise<Set<string>> {
  const sockets = new Set<string>();
  if (roots.length === 0) {
    return sockets;
  }
  for (const pid of await descendants(roots)) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
    for (const link of links) {
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode !== undefined) {
        sockets.add(inode);
      }
    }
  }
  return sockets;
}

/** `roots` and every process below them, by the parent each process's /proc/<pid>/stat names. */
async function descendants(roots: number[]): Promise<Set<number>> {
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  const children = new Map<number, number[]>();
  await Promise.all(
    pids.map(async (name) => {
      const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
      const parent = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number.isInteger(parent)) {
        children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
      }
    }),
  );
  const found = new Set<number>();
  const queue = [...roots];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    if (!found.has(pid)) {
      found.add(pid);
      queue.push(...(children.get(pid) ?? []));
    }
  }
  return found;
}
