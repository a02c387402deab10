import { z } from 'zod';
import { FOLDERS } from './names.js';

/**
 * What files/ answers, declared once: the tools (workspace_files, keep_file), the REST tree, the
 * admin API and the page all render these, and the types below are what the code fills.
 */

const folder = z.enum(FOLDERS);

/** Every answer that names a stored file links to it this way (stdio has no HTTP server to open one). */
export const signedLink = z
  .string()
  .optional()
  .describe('a signed link that opens the file without the bearer token, until it expires; absent over stdio');

/** Which flow run, and which of its steps, made a file (seed 000 §F1.10). */
export const madeBy = z.object({
  flow: z.string(),
  step: z.union([z.number(), z.string()]).nullable().describe("the step's id, else its 1-based number"),
});

export const fileEntry = z.object({
  name: z.string(),
  uri: z.string().describe('read it, keep_file it, or upload_file it by this uri'),
  size: z.number(),
  created: z.string().describe('ISO 8601, UTC'),
  content_type: z.string(),
  image: z.boolean(),
  url: signedLink,
  made_by: madeBy
    .optional()
    .describe('the flow run step that made it (a screenshot, a print, a kept download); absent: made by hand'),
});

/** A browser whose Grid offers no managed downloads: its downloads say so rather than list nothing. */
const downloadsOff = z
  .string()
  .optional()
  .describe(
    'downloads only: the browser lives but its Grid offers no managed downloads; the sentence says how to turn them on',
  );

export const folderSummary = z.object({
  name: folder,
  uri: z.string(),
  count: z.number(),
  browser: z.boolean().optional().describe('downloads only: whether the browser lives (downloads end with it)'),
  downloads_off: downloadsOff,
});

/** `workspace://files` and its two folders. */
export const fileListing = z.object({
  workspace: z.string(),
  uri: z.string(),
  folder: folder.optional().describe('the folder listed; absent for Files itself'),
  count: z.number(),
  files: z.array(fileEntry).describe('newest first, at most 100 (count says how many there are)'),
  folders: z.array(folderSummary).optional().describe('Files only: its two folders'),
  browser: z.boolean().optional().describe('downloads: whether the browser lives (downloads end with it)'),
  downloads_off: downloadsOff,
});

export const keepResult = z.object({
  from: z.string().describe('the uri it was kept from'),
  uri: z.string().describe('where it is now, in Files'),
  name: z.string().describe('the name it landed under in Files (a clash lands as "name (1)")'),
  size: z.number(),
  kept_already: z.literal(true).optional().describe('the uri named a file in Files already: nothing moved'),
  url: signedLink,
});

/** A workspace's three sections, for the admin page. */
export const workspaceSections = z.object({
  workspace: z.string(),
  browser: z.boolean().describe('whether the browser lives (so Clear downloads can work)'),
  downloads: z.array(fileEntry).describe('newest first'),
  downloads_off: downloadsOff,
  screenshots: z.array(fileEntry).describe('newest first'),
  files: z.array(fileEntry).describe('newest first'),
});

/** What an operator's clear removed, by name, so the page can say so. */
export const cleared = z.object({
  workspace: z.string(),
  cleared: z.number(),
  names: z.array(z.string()).describe('the names removed'),
});

export const fileDeleted = z.object({ workspace: z.string(), deleted: z.string() });

export type MadeBy = z.infer<typeof madeBy>;
export type FileEntry = z.infer<typeof fileEntry>;
export type FolderSummary = z.infer<typeof folderSummary>;
export type Listing = z.infer<typeof fileListing>;
export type KeepResult = z.infer<typeof keepResult>;
export type WorkspaceSections = z.infer<typeof workspaceSections>;
export type Cleared = z.infer<typeof cleared>;
export type FileDeleted = z.infer<typeof fileDeleted>;
