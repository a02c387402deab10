import { link, mkdir, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { onDisk, syncDirectory, writeTemp, writeWhole } from '../disk.js';
import { NotFound } from '../errors.js';
import { unlimitedRoom, type WorkspaceRoom } from '../quotas/disk.js';
import { madeBy as madeByShape, type MadeBy } from './answers.js';
import { candidateNames, fileName } from './names.js';
import { workspaceOrStdio } from '../workspace/names.js';

/** The two sections that live on this server's disk; Downloads are the Grid's. */
export type DiskSection = 'screenshots' | 'files';

export interface StoredFile {
  name: string;
  size: number;
  created: Date;
}

/**
 * `<FLOW_DATA_DIR>/<workspace>/screenshots/` and `<workspace>/files/`. The only code that
 * turns a name into a path: every name is validated first, so no name reaches past its folder.
 *
 * Every write lands whole or not at all: bytes go to a flushed temp file in `<workspace>/.incoming/`
 * (the same filesystem; src/disk.ts), then are renamed into place (replace) or hard-linked (claim —
 * a link fails when the name is taken, so two racing saves can never both win one name). Each
 * save of new bytes passes the workspace's room (WORKSPACE_DISK_QUOTA) first.
 */
export class DiskFiles {
  constructor(
    private readonly root: string,
    private readonly room: WorkspaceRoom = unlimitedRoom(),
  ) {}

  /** What the workspace's Screenshots and Files hold, in bytes (its quota counts its flows too). */
  async usedBytes(workspace: string): Promise<number> {
    const sections = await Promise.all([this.list(workspace, 'screenshots'), this.list(workspace, 'files')]);
    return sections.flat().reduce((sum, file) => sum + file.size, 0);
  }

  async list(workspace: string, section: DiskSection): Promise<StoredFile[]> {
    const dir = this.folder(workspace, section);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if (isMissing(err)) {
        return [];
      }
      throw err;
    }
    const entries = await Promise.all(
      names.map(async (name) => {
        try {
          const info = await stat(join(dir, name));
          return info.isFile() ? { name, size: info.size, created: info.mtime } : undefined;
        } catch {
          return undefined; // removed while we listed
        }
      }),
    );
    return entries.filter((e): e is StoredFile => e !== undefined);
  }

  async find(workspace: string, section: DiskSection, name: string): Promise<StoredFile | undefined> {
    try {
      const info = await stat(this.path(workspace, section, name));
      return info.isFile() ? { name, size: info.size, created: info.mtime } : undefined;
    } catch (err) {
      if (isMissing(err)) {
        return undefined;
      }
      throw err;
    }
  }

  /** The bytes of one file, or undefined when there is none by that name. */
  async read(workspace: string, section: DiskSection, name: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.path(workspace, section, name));
    } catch (err) {
      if (isMissing(err) || codeOf(err) === 'EISDIR') {
        return undefined;
      }
      throw err;
    }
  }

  /** Writes under the first free name of `name`, `name (1)`, …; never overwrites. */
  async claim(workspace: string, section: DiskSection, name: string, bytes: Uint8Array): Promise<StoredFile> {
    return this.room.take(workspace, bytes.byteLength, async () => {
      const temp = await this.temp(workspace, bytes);
      try {
        return await this.linkFirstFree(temp, workspace, section, name);
      } finally {
        await rm(temp, { force: true });
      }
    });
  }

  /** Writes `name`, replacing a file of that name whole (a reader sees the old or the new). */
  async replace(workspace: string, section: DiskSection, name: string, bytes: Uint8Array): Promise<StoredFile> {
    const target = this.path(workspace, section, name);
    const replacing = async () => (await this.find(workspace, section, name))?.size ?? 0;
    return this.room.take(
      workspace,
      bytes.byteLength,
      async () => {
        const temp = await this.temp(workspace, bytes);
        try {
          await onDisk(() => mkdir(this.folder(workspace, section), { recursive: true }));
          await onDisk(() => rename(temp, target));
        } catch (err) {
          await rm(temp, { force: true });
          throw err;
        }
        await syncDirectory(this.folder(workspace, section));
        return { name, size: bytes.byteLength, created: (await stat(target)).mtime };
      },
      replacing,
    );
  }

  /** Moves a file into another section under its first free name there; no bytes are copied. */
  async move(workspace: string, from: DiskSection, name: string, to: DiskSection): Promise<StoredFile> {
    const source = this.path(workspace, from, name);
    if (!(await this.find(workspace, from, name))) {
      throw new NotFound(`No ${from === 'screenshots' ? 'screenshot' : 'file'} called ${JSON.stringify(name)}.`);
    }
    // In the workspace's turn, though it takes no room: a save measuring meanwhile would count the linked file twice.
    return this.room.take(workspace, 0, async () => {
      let landed: StoredFile;
      try {
        landed = await this.linkFirstFree(source, workspace, to, name);
      } catch (err) {
        if (isMissing(err)) {
          throw new NotFound(
            `No ${from === 'screenshots' ? 'screenshot' : 'file'} called ${JSON.stringify(name)} (moved or cleared meanwhile).`,
          );
        }
        throw err;
      }
      await rm(source, { force: true });
      return landed;
    });
  }

  /**
   * Marks a file as made by a flow step, or clears a mark (`undefined`) a file of the same name
   * once had. A sidecar of our own beside the section: the bytes stay exactly what was made.
   */
  async mark(workspace: string, section: DiskSection, name: string, madeBy: MadeBy | undefined): Promise<void> {
    const path = this.markPath(workspace, section, name);
    if (!madeBy) {
      await rm(path, { force: true });
      return;
    }
    const dir = join(this.root, workspaceOrStdio(workspace), MARKS, section);
    await writeWhole(path, JSON.stringify({ flow: madeBy.flow, step: madeBy.step }), dir);
  }

  async markOf(workspace: string, section: DiskSection, name: string): Promise<MadeBy | undefined> {
    try {
      return madeByFrom(await readFile(this.markPath(workspace, section, name), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** The marks of a section, by file name. */
  async marks(workspace: string, section: DiskSection): Promise<Map<string, MadeBy>> {
    const dir = join(this.root, workspaceOrStdio(workspace), MARKS, section);
    const found = new Map<string, MadeBy>();
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return found;
    }
    for (const entry of names.filter((n) => n.endsWith('.json'))) {
      const madeBy = await readFile(join(dir, entry), 'utf8').then(madeByFrom, () => undefined);
      if (madeBy) {
        found.set(entry.slice(0, -'.json'.length), madeBy);
      }
    }
    return found;
  }

  async delete(workspace: string, section: DiskSection, name: string): Promise<boolean> {
    try {
      await unlink(this.path(workspace, section, name));
      await this.mark(workspace, section, name, undefined);
      return true;
    } catch (err) {
      if (isMissing(err)) {
        return false;
      }
      throw err;
    }
  }

  /** Removes every file of a section; answers the names that went. */
  async clear(workspace: string, section: DiskSection): Promise<string[]> {
    const removed: string[] = [];
    for (const entry of await this.list(workspace, section)) {
      if (await this.delete(workspace, section, entry.name)) {
        removed.push(entry.name);
      }
    }
    return removed.sort();
  }

  /**
   * Removes a workspace's directory and all under it (its sections, marks, half-written files,
   * and whatever else it holds there). rm never follows a symbolic link: a link inside goes, never
   * what it points at; a workspace directory that is itself a link loses only the link.
   */
  async removeWorkspace(workspace: string): Promise<void> {
    await rm(join(this.root, workspaceOrStdio(workspace)), { recursive: true, force: true });
  }

  /** The directories under the data directory: every workspace (and `global`) that ever stored something. */
  async workspaces(): Promise<string[]> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
    } catch (err) {
      if (isMissing(err)) {
        return [];
      }
      throw err;
    }
  }

  private async linkFirstFree(
    existing: string,
    workspace: string,
    section: DiskSection,
    name: string,
  ): Promise<StoredFile> {
    await onDisk(() => mkdir(this.folder(workspace, section), { recursive: true }));
    for (const candidate of candidateNames(name, section === 'files')) {
      try {
        await onDisk(() => link(existing, this.path(workspace, section, candidate)));
      } catch (err) {
        if (codeOf(err) === 'EEXIST') {
          continue;
        }
        throw err;
      }
      await syncDirectory(this.folder(workspace, section));
      const info = await stat(existing);
      return { name: candidate, size: info.size, created: info.mtime };
    }
    throw new Error('unreachable: candidateNames never ends');
  }

  private async temp(workspace: string, bytes: Uint8Array): Promise<string> {
    return writeTemp(join(this.root, workspaceOrStdio(workspace), '.incoming'), bytes, '');
  }

  private markPath(workspace: string, section: DiskSection, name: string): string {
    return join(this.root, workspaceOrStdio(workspace), MARKS, section, `${fileName(name)}.json`);
  }

  private folder(workspace: string, section: DiskSection): string {
    return join(this.root, workspaceOrStdio(workspace), section);
  }

  private path(workspace: string, section: DiskSection, name: string): string {
    return join(this.folder(workspace, section), fileName(name));
  }
}

/** Where the made_by marks live: a dot directory, never listed as a section. */
const MARKS = '.made_by';

function madeByFrom(text: string): MadeBy | undefined {
  try {
    const mark = madeByShape.safeParse(JSON.parse(text));
    return mark.success ? mark.data : undefined;
  } catch {
    return undefined;
  }
}

function isMissing(err: unknown): boolean {
  return codeOf(err) === 'ENOENT';
}

/** The code a failed file-system call carries (ENOENT, EEXIST …). */
function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}
