import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** A process we started (or one its children started), known by pid and start time so a reused pid is never signalled. */
interface Known {
  pid: number;
  start: string;
}

const known = new Map<number, Known>();

function stat(pid: number): { ppid: number; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; the fields after it are fixed.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

// USER_HZ: the unit of utime and stime in /proc/<pid>/stat, 100 on every Linux we run on.
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms; NaN when it is gone. */
export function cpuMillis(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** `pid` and every descendant of it, now. Remembers their start times for `stopProcesses`. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child)) {
      continue;
    }
    const s = stat(child);
    if (s) {
      children.set(s.ppid, [...(children.get(s.ppid) ?? []), child]);
    }
  }
  const tree: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const s = stat(next);
    if (!s) {
      continue;
    }
    known.set(next, { pid: next, start: s.start });
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

function alive(pid: number): boolean {
  const s = stat(pid);
  const k = known.get(pid);
  return s !== undefined && (k === undefined || k.start === s.start) && !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  if (!alive(pid)) {
    return;
  }
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

async function allEnded(pids: readonly number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive)) {
    if (Date.now() >= deadline) {
      return false;
    }
    await delay(50);
  }
  return true;
}

/** Waits for these processes to end on their own, then SIGTERM, then SIGKILL; each wait bounded. */
export async function stopProcesses(pids: readonly number[], graceMs = 5_000): Promise<void> {
  if (await allEnded(pids, graceMs)) {
    return;
  }
  pids.forEach((pid) => signal(pid, 'SIGTERM'));
  if (await allEnded(pids, 5_000)) {
    return;
  }
  pids.forEach((pid) => signal(pid, 'SIGKILL'));
  await allEnded(pids, 5_000);
}

/** Resident set size in bytes (VmRSS), or NaN when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
