import { isJsonObject } from '../json.js';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeWhole } from '../disk.js';
import { Conflict } from '../errors.js';

/**
 * A write or delete at a revision the flow is no longer at: a 409 that writes nothing, whoever
 * asks. The facts are kept so a door can word the remedy for its own audience.
 */
export class StaleRevision extends Conflict {
  constructor(
    readonly flow: string,
    readonly given: string,
    /** the revision now stored; undefined when the flow has been deleted since */
    readonly now: string | undefined,
  ) {
    super(
      `Flow ${flow} has changed since revision ${given}${now ? ` (now ${now})` : ' (it no longer exists)'}; read it again with get_flow and reapply your change.`,
    );
  }
}

export interface StoredFlow {
  name: string;
  library: string;
  /** the YAML exactly as written, comments and all */
  text: string;
  revision: string;
}

/**
 * Where flows live. The interface speaks in libraries and names, never paths, so a remote
 * backend (WebDAV, S3) can stand behind it; listing returns texts for the caller to summarise
 * and cache, never parsed documents.
 */
export interface FlowStore {
  names(library: string): Promise<string[]>;
  get(library: string, name: string): Promise<StoredFlow | undefined>;
  /** Writes the text; a stale `ifMatch` revision is a 409 and writes nothing. */
  put(library: string, name: string, text: string, ifMatch?: string): Promise<{ flow: StoredFlow; created: boolean }>;
  delete(library: string, name: string): Promise<boolean>;
  /** when this library's owner last ran each flow (epoch ms), its own and global ones alike */
  uses(library: string): Promise<Record<string, number>>;
  /** remembers that this library's owner ran a flow now; best effort (an order, not a record) */
  recordUse(library: string, name: string): Promise<void>;
  /** how many flows the library holds and their size in bytes, as stored */
  usage(library: string): Promise<{ count: number; bytes: number }>;
  /** removes every flow of the library and what it remembers of their runs */
  clear(library: string): Promise<void>;
}

/** Enough to order any library that fits in tools/list; older uses are forgotten first. */
const USES_KEPT = 200;

export function revisionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

const EXTENSION = '.yaml';
/** A dot file: never listed as a flow. */
const USES_FILE = '.uses.json';

/** `<root>/<library>/flows/<name>.yaml`; directories appear on the first write. */
export class DirectoryFlowStore implements FlowStore {
  constructor(private readonly root: string) {}

  private dir(library: string): string {
    return join(this.root, library, 'flows');
  }

  private file(library: string, name: string): string {
    return join(this.dir(library), `${name}${EXTENSION}`);
  }

  async names(library: string): Promise<string[]> {
    try {
      // Only files: a directory or a link planted under a flow's name is no flow.
      const entries = await readdir(this.dir(library), { withFileTypes: true });
      return entries
        .filter((e) => e.isFile() && e.name.endsWith(EXTENSION) && !e.name.startsWith('.'))
        .map((e) => e.name.slice(0, -EXTENSION.length))
        .sort();
    } catch (err) {
      if (isMissing(err)) {
        return [];
      }
      throw err;
    }
  }

  async get(library: string, name: string): Promise<StoredFlow | undefined> {
    try {
      const text = await readFlowFile(this.file(library, name));
      return { name, library, text, revision: revisionOf(text) };
    } catch (err) {
      if (isMissing(err) || isNoFlowFile(err)) {
        return undefined;
      }
      throw err;
    }
  }

  async put(
    library: string,
    name: string,
    text: string,
    ifMatch?: string,
  ): Promise<{ flow: StoredFlow; created: boolean }> {
    const existing = await this.get(library, name);
    if (ifMatch !== undefined && existing?.revision !== ifMatch) {
      throw new StaleRevision(name, ifMatch, existing?.revision);
    }
    // Written aside, flushed and renamed (src/disk.ts): a crash or a full disk never leaves half a flow.
    await writeWhole(this.file(library, name), text, this.dir(library));
    return { flow: { name, library, text, revision: revisionOf(text) }, created: existing === undefined };
  }

  async uses(library: string): Promise<Record<string, number>> {
    try {
      return usesFrom(await readFile(join(this.dir(library), USES_FILE), 'utf8'));
    } catch (err) {
      if (isMissing(err)) {
        return {};
      }
      throw err;
    }
  }

  async recordUse(library: string, name: string): Promise<void> {
    const uses = { ...(await this.uses(library)), [name]: Date.now() };
    const kept = Object.entries(uses)
      .sort((a, b) => b[1] - a[1])
      .slice(0, USES_KEPT);
    await writeWhole(join(this.dir(library), USES_FILE), JSON.stringify(Object.fromEntries(kept)), this.dir(library));
  }

  async usage(library: string): Promise<{ count: number; bytes: number }> {
    const sizes = await Promise.all(
      (await this.names(library)).map(async (name) => {
        // lstat: names() lists files only, and one replaced by a link since is still not followed.
        const info = await lstat(this.file(library, name)).catch(() => undefined);
        return info?.isFile() ? info.size : undefined;
      }),
    );
    const flows = sizes.filter((size): size is number => size !== undefined);
    return { count: flows.length, bytes: flows.reduce((sum, size) => sum + size, 0) };
  }

  async clear(library: string): Promise<void> {
    // rm never follows a symbolic link: a link inside goes, never what it points at.
    await rm(this.dir(library), { recursive: true, force: true });
  }

  async delete(library: string, name: string): Promise<boolean> {
    try {
      await rm(this.file(library, name));
      return true;
    } catch (err) {
      if (isMissing(err)) {
        return false;
      }
      throw err;
    }
  }
}

/** The last-run times of a library, as stored: names that are not flow names are dropped. */
function usesFrom(text: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isJsonObject(parsed)) {
      return {};
    }
    const uses: Record<string, number> = {};
    for (const [name, at] of Object.entries(parsed)) {
      if (typeof at === 'number' && /^[A-Za-z0-9._-]{1,64}$/.test(name)) {
        uses[name] = at;
      }
    }
    return uses;
  } catch {
    return {};
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ENOENT';
}

/** A flow's text, never through a link: a link in the directory would read whatever it names. */
async function readFlowFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** A link (ELOOP under O_NOFOLLOW) or a directory where a flow's file would be: no flow. */
function isNoFlowFile(err: unknown): boolean {
  return err instanceof Error && 'code' in err && (err.code === 'ELOOP' || err.code === 'EISDIR');
}
