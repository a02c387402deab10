import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/*
 * Several selenium-flow instances on one host (servers, each with its Grid or its fence, and
 * `selenium-flow grid`): a page of one must reach no port of another, even a port its own
 * BROWSER_LOOPBACK_PORTS opens (a chromedriver takes a random port, in an open range as likely as
 * anywhere: another Grid's answered a page on 20104). Each instance says here what is its own,
 * in a directory every instance reads: its process, the supervisors its Grid's processes descend
 * from, and the ports its own process listens on (its HTTP server, its proxy). The fences read it
 * (listeners.ts) before they open a port of this host.
 */

/** One directory for every user's instances: /tmp, not TMPDIR, which differs from user to user. */
export const INSTANCES_DIR = '/tmp/selenium-flow-instances';
const MAX_ENTRY_BYTES = 65_536;
/** How long the entries read are trusted: an instance writes its own before its Grid opens a browser. */
const READ_TTL_MS = 1_000;

const Entry = z.object({
  pid: z.number().int().positive(),
  /** the process's start time (field 22 of /proc/<pid>/stat): a pid reused since is not the instance */
  start: z.string().regex(/^\d+$/),
  uid: z.number().int().min(0),
  /** ports its own process listens on */
  ports: z.array(z.number().int().min(1).max(65_535)).max(256),
  /** processes whose descendants are its Grid's: JVMs, drivers, browsers, displays */
  roots: z.array(z.number().int().positive()).max(256),
});
export type InstanceEntry = z.infer<typeof Entry>;

/** This process's start time, as /proc says it; undefined where there is no /proc. */
export async function startTime(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // The name (field 2) may hold spaces and parentheses: the fields after the last ')' are plain.
  return text?.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

/** What one Grid, fence or server of this process says of itself, until it withdraws. */
export class InstanceNotice {
  private readonly entry: InstanceEntry;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string | undefined,
    start: string,
  ) {
    this.entry = { pid: process.pid, start, uid: process.geteuid?.() ?? 0, ports: [], roots: [] };
  }

  /** A notice of this process's (none is written where the directory cannot be: a fence then knows less). */
  static async open(): Promise<InstanceNotice> {
    const start = (await startTime(process.pid)) ?? '0';
    const ready = await instancesDir();
    const file = ready ? join(INSTANCES_DIR, `${process.pid}-${randomBytes(6).toString('hex')}.json`) : undefined;
    const notice = new InstanceNotice(file, start);
    await notice.add({});
    return notice;
  }

  /** Adds ports this process listens on, and roots of the Grid's processes; written before it answers. */
  add(what: { ports?: readonly number[]; roots?: readonly (number | undefined)[] }): Promise<void> {
    for (const port of what.ports ?? []) {
      if (!this.entry.ports.includes(port)) {
        this.entry.ports.push(port);
      }
    }
    for (const root of what.roots ?? []) {
      if (root !== undefined && !this.entry.roots.includes(root)) {
        this.entry.roots.push(root);
      }
    }
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  async withdraw(): Promise<void> {
    await this.writing;
    if (this.file !== undefined) {
      await unlink(this.file).catch(() => undefined);
    }
  }

  /** A new file renamed over the old: a reader sees one whole entry or the other, never half. */
  private async write(): Promise<void> {
    if (this.file === undefined) {
      return;
    }
    const fresh = `${this.file}.${randomBytes(4).toString('hex')}`;
    try {
      const handle = await open(
        fresh,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        await handle.writeFile(JSON.stringify(this.entry));
      } finally {
        await handle.close();
      }
      await rename(fresh, this.file);
    } catch {
      await unlink(fresh).catch(() => undefined);
    }
  }
}

/** The shared directory, made once by whoever comes first: anyone may add, only an owner remove (1777, as /tmp). */
async function instancesDir(): Promise<boolean> {
  try {
    await mkdir(INSTANCES_DIR, { mode: 0o1777 });
    await chmod(INSTANCES_DIR, 0o1777);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) {
      return false;
    }
  }
  const found = await stat(INSTANCES_DIR).catch(() => undefined);
  // Sticky and world-writable, as made above: anything else is not the shared directory.
  return found !== undefined && found.isDirectory() && (found.mode & 0o1777) === 0o1777;
}

let cache: { read: number; entries: Promise<InstanceEntry[]> } | undefined;

/** The live instances of this host (this process's own among them), read again at most every second. */
export function liveInstances(now = Date.now()): Promise<InstanceEntry[]> {
  if (!cache || now - cache.read > READ_TTL_MS) {
    cache = { read: now, entries: readInstances() };
  }
  return cache.entries;
}

async function readInstances(): Promise<InstanceEntry[]> {
  const names = await readdir(INSTANCES_DIR).catch(() => []);
  const entries = await Promise.all(
    names.filter((name) => /^\d+-[0-9a-f]+\.json$/.test(name)).map(async (name) => readEntry(name)),
  );
  return entries.filter((entry): entry is InstanceEntry => entry !== undefined);
}

async function readEntry(name: string): Promise<InstanceEntry | undefined> {
  const path = join(INSTANCES_DIR, name);
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let text: string;
    try {
      const { size } = await handle.stat();
      text = size > MAX_ENTRY_BYTES ? '' : await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    const parsed = Entry.safeParse(JSON.parse(text));
    if (!parsed.success) {
      return undefined;
    }
    if ((await startTime(parsed.data.pid)) !== parsed.data.start) {
      // The instance ended without withdrawing (killed): its owner, or root, clears it.
      await unlink(path).catch(() => undefined);
      return undefined;
    }
    return parsed.data;
  } catch {
    return undefined;
  }
}
