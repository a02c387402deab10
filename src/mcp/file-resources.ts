import { callTool, type CallDeps } from '../capabilities/call/call.js';
import { workspaceFiles } from '../capabilities/tools/files.js';
import type { Section } from '../files/names.js';
import { FILES_URI, FOLDER_URI } from '../files/uris.js';
import type { Caller } from '../workspace/caller.js';
import type { ResourceContent, ResourceDefinition } from './resources.js';

const listing = async (
  deps: CallDeps,
  caller: Caller,
  uri: string,
  args: Record<string, unknown>,
): Promise<ResourceContent[]> => [
  { uri, mimeType: 'application/json', text: JSON.stringify(await callTool(deps, workspaceFiles, args, caller)) },
];

function fileTemplate(section: Section, title: string, description: string): ResourceDefinition {
  const template = section === 'files' ? `${FILES_URI}/{name}` : `${FOLDER_URI[section]}/{name}`;
  return {
    template,
    name: `${section === 'files' ? 'file' : section.slice(0, -1)}`,
    title,
    description,
    mimeType: 'application/octet-stream',
    read: async (deps, caller, uri, vars) => {
      const file = await deps.files.read(caller.workspace, { section, name: vars.name ?? '' });
      return [{ uri, mimeType: file.contentType, blob: Buffer.from(file.bytes).toString('base64') }];
    },
    complete: async (deps, caller) => deps.files.names(caller.workspace, section),
  };
}

/**
 * A workspace's files. The folders come before the `{name}` templates: the first match wins,
 * and `workspace://files/{name}` would otherwise match `workspace://files/screenshots`.
 */
export const FILE_RESOURCES: ResourceDefinition[] = [
  {
    uri: FILES_URI,
    name: 'files',
    title: 'Files',
    description:
      'The workspace’s Files (prints and kept files; they stay until a person deletes them) and its two folders, screenshots and downloads.',
    mimeType: 'application/json',
    read: (deps, caller, uri) => listing(deps, caller, uri, {}),
  },
  {
    uri: FOLDER_URI.screenshots,
    name: 'screenshots',
    title: 'Screenshots',
    description: 'Screenshots taken with save: true, newest first; keep_file one to move it into Files.',
    mimeType: 'application/json',
    read: (deps, caller, uri) => listing(deps, caller, uri, { folder: 'screenshots' }),
  },
  {
    uri: FOLDER_URI.downloads,
    name: 'downloads',
    title: 'Downloads',
    description:
      'What the browser downloaded, newest first, while it lives; keep_file one to copy it into Files before the browser ends.',
    mimeType: 'application/json',
    read: (deps, caller, uri) => listing(deps, caller, uri, { folder: 'downloads' }),
  },
  fileTemplate('files', 'A file in Files', 'The bytes of one file in Files.'),
  fileTemplate('screenshots', 'A screenshot', 'The bytes of one saved screenshot.'),
  fileTemplate('downloads', 'A download', 'The bytes of one download, while the browser lives.'),
];
