import type { FileEntry, KeepResult, Listing, MadeBy } from './answers.js';
import type { FileBytes, Files } from './files.js';
import type { Folder } from './names.js';

/** One workspace's files, as a tool handler sees them: nothing that clears or deletes. */
export interface WorkspaceFiles {
  root(): Promise<Listing>;
  folder(folder: Folder): Promise<Listing>;
  readUri(uri: string): Promise<FileBytes>;
  /** throws the 400 that says to set FLOW_DATA_DIR when the server has no data directory */
  ensureSaving(): void;
  saveScreenshot(name: string | undefined, png: Uint8Array): Promise<FileEntry>;
  savePrint(name: string | undefined, pdf: Uint8Array): Promise<FileEntry>;
  keep(uri: string): Promise<KeepResult>;
  /** undefined when the server has no data directory */
  saveBody(name: string, bytes: Uint8Array): Promise<FileEntry | undefined>;
}

/** `madeBy`: the flow step this call is, so what it makes says so in every listing. */
export function filesOf(files: Files, workspace: string | undefined, madeBy?: MadeBy): WorkspaceFiles {
  return {
    root: () => files.root(workspace),
    folder: (folder) => files.folder(workspace, folder),
    readUri: (uri) => files.readUri(workspace, uri),
    ensureSaving: () => void files.requireDisk(),
    saveScreenshot: (name, png) => files.saveScreenshot(workspace, name, png, madeBy),
    savePrint: (name, pdf) => files.savePrint(workspace, name, pdf, madeBy),
    keep: (uri) => files.keep(workspace, uri, madeBy),
    saveBody: (name, bytes) => files.saveBody(workspace, name, bytes),
  };
}
