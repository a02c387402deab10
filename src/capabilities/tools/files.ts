import { z } from 'zod';
import { defineTool } from '../capability.js';
import { fileListing, keepResult } from '../../files/answers.js';
import { FILES_URI, FOLDER_URI } from '../../files/uris.js';
import { MAX_URI_CHARS } from '../../limits.js';

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
  output: keepResult,
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
  app: { name: 'files' },
  http: { method: 'GET', path: '/files' },
  input: z.object({ folder: z.enum(['screenshots', 'downloads']).optional().describe('instead of Files') }),
  output: fileListing,
  handler: async (args, { files }) => (args.folder ? files.folder(args.folder) : files.root()),
});

export default [keepFile, workspaceFiles];
