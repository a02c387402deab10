import type { Section } from '../files/names.js';
import { FILES_URI, FOLDER_URI } from '../files/uris.js';
import type { ResourceDefinition } from './resources.js';

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

/** The bytes of a workspace's files (their listings are workspace_files' mirrors). */
export const FILE_RESOURCES: ResourceDefinition[] = [
  fileTemplate('files', 'A file in Files', 'The bytes of one file in Files.'),
  fileTemplate('screenshots', 'A screenshot', 'The bytes of one saved screenshot.'),
  fileTemplate('downloads', 'A download', 'The bytes of one download, while the browser lives.'),
];
