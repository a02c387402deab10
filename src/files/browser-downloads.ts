import { DOWNLOADS_OFF, DownloadsOff, NotFound } from '../errors.js';
import type { StoredFile } from './store.js';

/** The Grid's managed downloads, as the Files service needs them; a NotFound means the browser is gone. */
export interface DownloadsSource {
  list(gridId: string): Promise<{ name: string; size: number; created: Date }[]>;
  read(gridId: string, name: string): Promise<Uint8Array | undefined>;
  clear(gridId: string): Promise<void>;
}

/** The browser a workspace's record names, and whether its Grid keeps its downloads (its session said so). */
export interface RecordedBrowser {
  gridId: string;
  downloads: boolean;
}

/** A workspace's Downloads as a listing shows them: none without a live browser, a sentence where the Grid keeps none. */
export interface DownloadsState {
  browser: boolean;
  files: StoredFile[];
  /** the browser lives, but its Grid offers no managed downloads: what to do about it */
  off?: string;
}

/**
 * A workspace's Downloads: the Grid's, kept by its browser and gone with it. Every read asks
 * the browser the workspace's record names; none, or one the Grid no longer knows, is a 404;
 * one whose Grid keeps no downloads is never asked, and answers how to turn them on.
 */
export class BrowserDownloads {
  constructor(
    private readonly source: DownloadsSource,
    private readonly browserOf: (workspace: string) => Promise<RecordedBrowser | undefined>,
  ) {}

  /** The browser's downloads; none when the workspace has no live browser (they end with it). */
  async list(owner: string): Promise<DownloadsState> {
    const browser = await this.browserOf(owner);
    if (browser && !browser.downloads) {
      return { browser: true, files: [], off: DOWNLOADS_OFF };
    }
    return this.fromBrowser(owner, browser, (gridId) => this.source.list(gridId)).then(
      (files) => ({ browser: true, files }),
      (err: unknown) => {
        if (err instanceof NotFound) {
          return { browser: false, files: [] };
        }
        throw err;
      },
    );
  }

  /** The bytes of one download, or undefined when the browser has none by that name. */
  async read(owner: string, name: string): Promise<Uint8Array | undefined> {
    const browser = await this.withDownloads(owner);
    return this.fromBrowser(owner, browser, (gridId) => this.source.read(gridId, name));
  }

  /** Empties the browser's download store; answers the names that went. */
  async clear(owner: string): Promise<string[]> {
    const browser = await this.withDownloads(owner);
    return this.fromBrowser(owner, browser, async (gridId) => {
      const listed = await this.source.list(gridId);
      await this.source.clear(gridId);
      return listed.map((f) => f.name).sort();
    });
  }

  private async withDownloads(owner: string): Promise<RecordedBrowser | undefined> {
    const browser = await this.browserOf(owner);
    if (browser && !browser.downloads) {
      throw new DownloadsOff();
    }
    return browser;
  }

  /** Runs `use` on the workspace's browser; none, or one the Grid no longer knows, is a 404. */
  private async fromBrowser<T>(
    owner: string,
    browser: RecordedBrowser | undefined,
    use: (gridId: string) => Promise<T>,
  ): Promise<T> {
    try {
      if (browser) {
        return await use(browser.gridId);
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
