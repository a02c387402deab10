import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Reads a file of /proc, or '' once the process has gone. */
function procText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Every process below `root` (not `root` itself), by the parent each one's /proc/<pid>/stat names. */
export function processesBelow(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const stat = procText(`/proc/${name}/stat`);
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** The TCP ports the processes `pids` listen on (any address), from their sockets and the kernel's tables. */
export function listeningPorts(pids: readonly number[]): number[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) {
          inodes.add(inode);
        }
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of procText(table).split('\n').slice(1)) {
      const [, local = '', , state, , , , , , inode = ''] = line.trim().split(/\s+/);
      if (state === '0A' && inodes.has(inode)) {
        ports.add(parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
      }
    }
  }
  return [...ports].sort((a, b) => a - b);
}
