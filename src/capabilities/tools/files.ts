import { z } from 'zod';
import { defineTool } from '../capability.js';
import { FILES_URI, FOLDER_URI } from '../../files/uris.js';
import { MAX_URI_CHARS } from '../../limits.js';

const entry = z.object({
  name: z.string(),
  uri: z.string().describe('read it, keep_file it, or upload_file it by this uri'),
  size: z.number(),
  created: z.string(),
  content_type: z.string(),
  image: z.boolean(),
  url: z.string().describe('a signed link that opens the file without the bearer token, until it expires'),
  made_by: z
    .object({ flow: z.string(), step: z.union([z.number(), z.string()]).nullable() })
    .optional()
    .describe('the flow run step that made it'),
});

export const fileListing = z.object({
  workspace: z.string(),
  uri: z.string(),
  folder: z.enum(['screenshots', 'downloads']).optional(),
  count: z.number(),
  files: z.array(entry).describe('newest first'),
  folders: z
    .array(
      z.object({
        name: z.enum(['screenshots', 'downloads']),
        uri: z.string(),
        count: z.number(),
        browser: z.boolean().optional(),
      }),
    )
    .optional()
    .describe('Files only: its two folders'),
  browser: z.boolean().optional().describe('downloads: whether the browser lives (downloads end with it)'),
});

export const keepFile = defineTool({
  name: 'keep_file',
  title: 'Keep a file',
  description: 'Keep a screenshot or download (by uri) in Files.',
  kind: 'act',
  destructive: false,
  attach: 'none',
  runnableInFlow: true,
  // never commands the browser
  answersUnderControl: true,
  http: { method: 'POST', path: '/files/kept' },
  input: z.object({
    uri: z.string().min(1).max(MAX_URI_CHARS).describe('workspace://files/{screenshots,downloads}/…'),
  }),
  output: z.object({
    from: z.string().describe('the uri it was kept from'),
    uri: z.string().describe('where it is now, in Files'),
    name: z.string(),
    size: z.number(),
    url: z.string().describe('a signed link that opens it without the bearer token, until it expires'),
  }),
  handler: async (args, { files }) => files.keep(args.uri),
});

export const workspaceFiles = defineTool({
  name: 'workspace_files',
  title: 'Files',
  description: 'Mirror of workspace://files.',
  kind: 'read',
  attach: 'none',
  runnableInFlow: false,
  mirrors: [
    {
      uri: FILES_URI,
      name: 'files',
      title: 'Files',
      description:
        'The workspace’s Files (prints and kept files; they stay until a person deletes them) and its two folders, screenshots and downloads.',
    },
    {
      uri: FOLDER_URI.screenshots,
      args: { folder: 'screenshots' },
      name: 'screenshots',
      title: 'Screenshots',
      description: 'Screenshots taken with save: true, newest first; keep_file one to move it into Files.',
    },
    {
      uri: FOLDER_URI.downloads,
      args: { folder: 'downloads' },
      name: 'downloads',
      title: 'Downloads',
      description:
        'What the browser downloaded, newest first, while it lives; keep_file one to copy it into Files before the browser ends.',
    },
  ],
  answersUnderControl: true,
  http: { method: 'GET', path: '/workspace/files' },
  input: z.object({ folder: z.enum(['screenshots', 'downloads']).optional().describe('instead of Files') }),
  output: fileListing,
  handler: async (args, { files }) => (args.folder ? files.folder(args.folder) : files.root()),
});

export default [keepFile, workspaceFiles];
