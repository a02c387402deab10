import { BadRequest, NotFound } from '../errors.js';
import type { LinkSigner } from './links.js';
import {
  contentTypeOf,
  fileName,
  isFolder,
  isImage,
  isSection,
  SECTIONS,
  withExtension,
  type Folder,
  type Section,
} from './names.js';
import { workspaceOrStdio } from '../workspace/names.js';
import type { Cleared, FileDeleted, FileEntry, KeepResult, Listing, MadeBy, WorkspaceSections } from './answers.js';
import { DiskFiles, type DiskSection, type StoredFile } from './store.js';
import { BrowserDownloads, type DownloadsSource, type RecordedBrowser } from './browser-downloads.js';
import { FILES_URI, FOLDER_URI, parseFileUri, uriOf, type FileAddress } from './uris.js';
import { MAX_LISTED_FILES } from '../limits.js';
import type { WorkspaceRoom } from '../quotas/disk.js';

export type { Cleared, FileEntry, KeepResult, Listing, MadeBy, WorkspaceSections } from './answers.js';
export type { DownloadsSource, RecordedBrowser } from './browser-downloads.js';

export interface FileBytes {
  name: string;
  bytes: Uint8Array;
  contentType: string;
}

export interface FilesOptions {
  dataDir: string | undefined;
  downloads: DownloadsSource;
  /** signs the links answers carry; absent where no HTTP server opens them (stdio) */
  links?: LinkSigner;
  /** what links start with: PUBLIC_URL and the route prefix ('' for links relative to the root) */
  linkBase: string;
  /**
   * the browser the workspace's record holds, if any (a browser the Grid has reaped answers
   * BrowserGone), and whether its Grid keeps its downloads
   */
  browserOf(workspace: string): Promise<RecordedBrowser | undefined>;
  /** WORKSPACE_DISK_QUOTA, and the turn every save of a workspace takes */
  room?: WorkspaceRoom;
}

const NO_WORKSPACE =
  'Files belong to a named workspace: name one with the X-Workspace header (HTTP) or ?workspace=… on the MCP URL, then call again.';
const NO_DATA_DIR =
  'Screenshots and Files need a data directory: set FLOW_DATA_DIR (--data-dir) on the server; until then a screenshot can only be answered, not saved.';

/**
 * A workspace's files, in three sections: Downloads (the Grid's, while the browser lives),
 * Screenshots (until kept or cleared) and Files (until a person deletes one). Every surface —
 * tools, resources, REST, the admin API — goes through here, so a rule is written once.
 */
export class Files {
  private readonly disk: DiskFiles | undefined;
  private readonly downloads: BrowserDownloads;
  private readonly base: string;

  constructor(private readonly options: FilesOptions) {
    this.disk = options.dataDir ? new DiskFiles(options.dataDir, options.room) : undefined;
    this.downloads = new BrowserDownloads(options.downloads, (workspace) => options.browserOf(workspace));
    this.base = options.linkBase;
  }

  get enabled(): boolean {
    return this.disk !== undefined;
  }

  /** `workspace://files`: the Files section, and its two folders with counts. */
  async root(workspace: string | undefined): Promise<Listing> {
    const owner = this.owner(workspace);
    const [files, screenshots, downloads] = await Promise.all([
      this.diskEntries(owner, 'files'),
      this.diskEntries(owner, 'screenshots'),
      this.downloadEntries(owner),
    ]);
    return {
      workspace: owner,
      uri: FILES_URI,
      count: files.length,
      files: files.slice(0, MAX_LISTED_FILES),
      folders: [
        { name: 'screenshots', uri: FOLDER_URI.screenshots, count: screenshots.length },
        {
          name: 'downloads',
          uri: FOLDER_URI.downloads,
          count: downloads.entries.length,
          browser: downloads.browser,
          ...offNote(downloads),
        },
      ],
    };
  }

  /** `workspace://files/screenshots` or `workspace://files/downloads`. */
  async folder(workspace: string | undefined, folder: Folder): Promise<Listing> {
    const owner = this.owner(workspace);
    if (folder === 'screenshots') {
      const files = await this.diskEntries(owner, 'screenshots');
      const listed = files.slice(0, MAX_LISTED_FILES);
      return { workspace: owner, uri: FOLDER_URI.screenshots, folder, count: files.length, files: listed };
    }
    const downloads = await this.downloadEntries(owner);
    return {
      workspace: owner,
      uri: FOLDER_URI.downloads,
      folder,
      count: downloads.entries.length,
      files: downloads.entries.slice(0, MAX_LISTED_FILES),
      browser: downloads.browser,
      ...offNote(downloads),
    };
  }

  /** Every section at once, for the admin page. */
  async sections(workspace: string): Promise<WorkspaceSections> {
    const owner = workspaceOrStdio(workspace);
    const [downloads, stored] = await Promise.all([this.downloadEntries(owner), this.stored(owner)]);
    return {
      workspace: owner,
      browser: downloads.browser,
      downloads: downloads.entries,
      ...offNote(downloads),
      ...stored,
    };
  }

  /** Screenshots and Files, from the disk alone: reading them never asks the Grid (or touches a browser). */
  async stored(workspace: string): Promise<{ screenshots: FileEntry[]; files: FileEntry[] }> {
    const owner = workspaceOrStdio(workspace);
    const [screenshots, files] = await Promise.all([
      this.diskEntries(owner, 'screenshots'),
      this.diskEntries(owner, 'files'),
    ]);
    return { screenshots, files };
  }

  /** Names in one section, for completions; never an error (a completion is a hint). */
  async names(workspace: string | undefined, section: Section): Promise<string[]> {
    try {
      const owner = this.owner(workspace);
      const entries =
        section === 'downloads' ? (await this.downloadEntries(owner)).entries : await this.diskEntries(owner, section);
      return entries.map((e) => e.name);
    } catch {
      return [];
    }
  }

  /** The bytes of the file a URI names (upload_file, resources). */
  async readUri(workspace: string | undefined, uri: string): Promise<FileBytes> {
    return this.read(workspace, parseFileUri(uri));
  }

  async read(workspace: string | undefined, address: FileAddress): Promise<FileBytes> {
    const owner = this.owner(workspace);
    const name = fileName(address.name);
    const bytes =
      address.section === 'downloads'
        ? await this.downloads.read(owner, name)
        : await this.requireDisk().read(owner, address.section, name);
    if (!bytes) {
      throw new NotFound(
        `No file ${uriOf(address.section, name)}; ${listingUri(address.section)} lists what there is.`,
      );
    }
    return { name, bytes, contentType: contentTypeOf(name) };
  }

  /** A screenshot lands in Screenshots under `name` (".png" added), or a dated name. */
  async saveScreenshot(
    workspace: string | undefined,
    name: string | undefined,
    png: Uint8Array,
    madeBy?: MadeBy,
  ): Promise<FileEntry> {
    const owner = this.owner(workspace);
    const wanted = withExtension(fileName(name ?? `screenshot ${stamp()}`, 'filename'), '.png');
    return this.landed(owner, 'screenshots', fileName(wanted, 'filename'), png, madeBy);
  }

  /** Claims a name for new bytes and marks who made them (clearing a mark an older namesake had). */
  private async landed(
    owner: string,
    section: DiskSection,
    name: string,
    bytes: Uint8Array,
    madeBy: MadeBy | undefined,
  ): Promise<FileEntry> {
    const disk = this.requireDisk();
    const stored = await disk.claim(owner, section, name, bytes);
    await disk.mark(owner, section, stored.name, madeBy);
    return this.describe(owner, section, stored, madeBy);
  }

  /** A print lands in Files under `name` (".pdf" added), or a dated name; a clash is `name (1)`. */
  async savePrint(
    workspace: string | undefined,
    name: string | undefined,
    pdf: Uint8Array,
    madeBy?: MadeBy,
  ): Promise<FileEntry> {
    const owner = this.owner(workspace);
    const wanted = withExtension(fileName(name ?? `page ${stamp()}`, 'filename'), '.pdf');
    return this.landed(owner, 'files', fileName(wanted, 'filename'), pdf, madeBy);
  }

  /** A response body answered as a file lands in Files (a clash is `name (1)`); undefined without a data directory. */
  async saveBody(workspace: string | undefined, name: string, bytes: Uint8Array): Promise<FileEntry | undefined> {
    if (!this.disk) {
      return undefined;
    }
    const owner = this.owner(workspace);
    return this.describe(owner, 'files', await this.disk.claim(owner, 'files', fileName(name, 'filename'), bytes));
  }

  /**
   * Puts one file in Files. A screenshot moves; a download is copied (the Grid cannot delete
   * one file) and replaces a same-named file, as downloading it again would; a file already
   * in Files answers with itself, saying so. Never an overwrite otherwise: a clash lands as `name (1)`.
   */
  async keep(workspace: string | undefined, uri: string, madeBy?: MadeBy): Promise<KeepResult> {
    const owner = this.owner(workspace);
    const { section, name } = parseFileUri(uri);
    const disk = this.requireDisk();
    let landed: StoredFile | undefined;
    // A screenshot keeps the mark of the run that took it; a download kept by a run gets its mark.
    let mark = madeBy;
    if (section === 'files') {
      landed = await disk.find(owner, 'files', name);
      if (!landed) {
        const waiting = await this.waitingToBeKept(owner, name);
        throw new NotFound(
          waiting
            ? `No file ${uriOf('files', name)} is in Files, but ${waiting} is: pass that uri to keep it.`
            : `No file ${uriOf('files', name)}; ${FILES_URI} lists what is in Files.`,
        );
      }
    } else if (section === 'screenshots') {
      if (!(await disk.find(owner, 'screenshots', name))) {
        throw new NotFound(
          `No screenshot ${uriOf('screenshots', name)} (kept already, or cleared); ${FOLDER_URI.screenshots} lists what there is.`,
        );
      }
      mark = (await disk.markOf(owner, 'screenshots', name)) ?? madeBy;
      landed = await disk.move(owner, 'screenshots', name, 'files');
      await disk.mark(owner, 'screenshots', name, undefined);
    } else {
      const bytes = await this.downloads.read(owner, name);
      if (!bytes) {
        throw new NotFound(
          `No download ${uriOf('downloads', name)}; ${FOLDER_URI.downloads} lists what the browser has.`,
        );
      }
      const target = isFolder(name) ? `${name} (1)` : name;
      landed = await disk.replace(owner, 'files', target, bytes);
    }
    if (section !== 'files') {
      await disk.mark(owner, 'files', landed.name, mark);
    }
    return {
      from: uriOf(section, name),
      uri: uriOf('files', landed.name),
      name: landed.name,
      size: landed.size,
      ...(section === 'files' ? { kept_already: true as const } : {}),
      ...this.link('files', owner, landed.name),
    };
  }

  /**
   * A Files URI is what a caller guesses for a screenshot or download it has not kept yet: the
   * one of that name that waits (a screenshot, else a download), so the refusal can name it.
   */
  private async waitingToBeKept(owner: string, name: string): Promise<string | undefined> {
    if (await this.requireDisk().find(owner, 'screenshots', name)) {
      return uriOf('screenshots', name);
    }
    // Only a hint: a Grid that cannot answer leaves the plain refusal.
    const downloads = await this.downloads.list(owner).catch(() => undefined);
    return downloads?.files.some((d) => d.name === name) ? uriOf('downloads', name) : undefined;
  }

  // Operator actions: the admin API only; no agent tool deletes or clears anything.

  /** Empties the browser's download store; only while the browser lives. Answers the names that went. */
  async clearDownloads(workspace: string): Promise<Cleared> {
    const owner = workspaceOrStdio(workspace);
    const names = await this.downloads.clear(owner);
    return { workspace: owner, cleared: names.length, names };
  }

  async clearScreenshots(workspace: string): Promise<Cleared> {
    const owner = workspaceOrStdio(workspace);
    const names = await this.requireDisk().clear(owner, 'screenshots');
    return { workspace: owner, cleared: names.length, names };
  }

  /** Every directory of the data directory (workspaces, `global`), valid names or not: the admin listing shows them all. */
  async directories(): Promise<string[]> {
    return this.disk ? this.disk.workspaces() : [];
  }

  /** Everything a workspace keeps on this server's disk goes (the operator deleting it). */
  async removeWorkspace(workspace: string): Promise<void> {
    await this.disk?.removeWorkspace(workspaceOrStdio(workspace));
  }

  /** Deletes one file in Files; Files is never cleared wholesale (but with its workspace). */
  async deleteFile(workspace: string, name: string): Promise<FileDeleted> {
    const owner = workspaceOrStdio(workspace);
    if (!(await this.requireDisk().delete(owner, 'files', fileName(name)))) {
      throw new NotFound(`No file ${uriOf('files', name)} in workspace ${owner}; nothing was deleted.`);
    }
    return { workspace: owner, deleted: name };
  }

  /** The bytes behind a signed link, after its signature and expiry pass (else a 403). */
  async readSigned(section: string, workspace: string, name: string, exp: unknown, sig: unknown): Promise<FileBytes> {
    const links = this.options.links;
    if (!links) {
      throw new NotFound('This server opens no file links; read the file by its workspace:// uri.');
    }
    links.verify(section, workspace, name, exp, sig);
    if (!isSection(section)) {
      throw new NotFound(`No section ${JSON.stringify(section)}; the sections are ${SECTIONS.join(', ')}.`);
    }
    return this.read(workspaceOrStdio(workspace), { section, name });
  }

  private owner(workspace: string | undefined): string {
    if (workspace === undefined) {
      throw new BadRequest(NO_WORKSPACE);
    }
    return workspaceOrStdio(workspace);
  }

  /** The data directory, or the 400 that says to set FLOW_DATA_DIR (asked before a browser works for a save). */
  requireDisk(): DiskFiles {
    if (!this.disk) {
      throw new BadRequest(NO_DATA_DIR);
    }
    return this.disk;
  }

  private async diskEntries(owner: string, section: DiskSection): Promise<FileEntry[]> {
    if (!this.disk) {
      return [];
    }
    const [files, marks] = await Promise.all([this.disk.list(owner, section), this.disk.marks(owner, section)]);
    return newestFirst(files).map((f) => this.describe(owner, section, f, marks.get(f.name)));
  }

  private async downloadEntries(owner: string): Promise<{ browser: boolean; entries: FileEntry[]; off?: string }> {
    const { browser, files, off } = await this.downloads.list(owner);
    const entries = newestFirst(files).map((f) => this.describe(owner, 'downloads', f));
    return { browser, entries, ...(off === undefined ? {} : { off }) };
  }

  private describe(owner: string, section: Section, file: StoredFile, madeBy?: MadeBy): FileEntry {
    const contentType = contentTypeOf(file.name);
    return {
      ...(madeBy ? { made_by: madeBy } : {}),
      name: file.name,
      uri: uriOf(section, file.name),
      size: file.size,
      created: file.created.toISOString(),
      content_type: contentType,
      image: isImage(contentType),
      ...this.link(section, owner, file.name),
    };
  }

  private link(section: Section, owner: string, name: string): { url?: string } {
    const links = this.options.links;
    return links ? { url: links.url(section, owner, name, this.base) } : {};
  }
}

/** A downloads answer carries the sentence when the browser's Grid keeps no downloads. */
function offNote(downloads: { off?: string }): { downloads_off?: string } {
  return downloads.off === undefined ? {} : { downloads_off: downloads.off };
}

function listingUri(section: Section): string {
  return section === 'files' ? FILES_URI : FOLDER_URI[section];
}

function newestFirst<T extends StoredFile>(files: T[]): T[] {
  return [...files].sort((a, b) => b.created.getTime() - a.created.getTime() || a.name.localeCompare(b.name));
}

/** "2026-12-02 10.31.05": sortable, and legal in a file name everywhere. */
function stamp(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ').replace(/:/g, '.');
}
