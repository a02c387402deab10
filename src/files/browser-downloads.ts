import { NotFound } from '../errors.js';
import type { StoredFile } from './store.js';

/** The Grid's managed downloads, as the Files service needs them; a NotFound means the browser is gone. */
export interface DownloadsSource {
  list(gridId: string): Promise<{ name: string; size: number; created: Date }[]>;
  read(gridId: string, name: string): Promise<Uint8Array | undefined>;
  clear(gridId: string): Promise<void>;
}

/**
 * A workspace's Downloads: the Grid's, kept by its browser and gone with it. Every read asks
 * the browser the workspace's record names; none, or one the Grid no longer knows, is a 404.
 */
export class BrowserDownloads {
  constructor(
    private readonly source: DownloadsSource,
    private readonly browserOf: (workspace: string) => Promise<string | undefined>,
  ) {}

  /** The browser's downloads; undefined when the workspace has no live browser (then it has none). */
  async list(owner: string): Promise<StoredFile[] | undefined> {
    return this.fromBrowser(owner, (gridId) => this.source.list(gridId)).catch((err: unknown) => {
      if (err instanceof NotFound) {
        return undefined;
      }
      throw err;
    });
  }

  /** The bytes of one download, or undefined when the browser has none by that name. */
  async read(owner: string, name: string): Promise<Uint8Array | undefined> {
    return this.fromBrowser(owner, (gridId) => this.source.read(gridId, name));
  }

  /** Empties the browser's download store; answers the names that went. */
  async clear(owner: string): Promise<string[]> {
    return this.fromBrowser(owner, async (gridId) => {
      const listed = await this.source.list(gridId);
      await this.source.clear(gridId);
      return listed.map((f) => f.name).sort();
    });
  }

  /** Runs `use` on the workspace's browser; none, or one the Grid no longer knows, is a 404. */
  private async fromBrowser<T>(owner: string, use: (gridId: string) => Promise<T>): Promise<T> {
    const gridId = await this.browserOf(owner);
    try {
      if (gridId) {
        return await use(gridId);
      }
    } catch (err) {
      if (!(err instanceof NotFound)) {
        throw err;
      }
    }
    throw new NotFound(
      `Workspace ${owner} has no live browser, so it has no downloads (they end with the browser); keep_file a download while its browser lives.`,
    );
  }
}
