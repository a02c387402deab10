import { BadRequest } from '../errors.js';
import { fileName, isFolder, type Folder, type Section } from './names.js';

/** Files itself; its two folders hang under it, which is why their names are reserved in it. */
export const FILES_URI = 'workspace://files';
export const FOLDER_URI: Record<Folder, string> = {
  screenshots: `${FILES_URI}/screenshots`,
  downloads: `${FILES_URI}/downloads`,
};

export const URI_SHAPES =
  'workspace://files/<name> for a file in Files, workspace://files/screenshots/<name> for a screenshot, or workspace://files/downloads/<name> for a download';

/** The address of one file: the section is part of it, so a name is unique only inside its section. */
export function uriOf(section: Section, name: string): string {
  const leaf = encodeURIComponent(name);
  return section === 'files' ? `${FILES_URI}/${leaf}` : `${FOLDER_URI[section]}/${leaf}`;
}

export interface FileAddress {
  section: Section;
  name: string;
}

/** `{section, name}` of a file's URI, or a 400 naming the shapes that are valid. */
export function parseFileUri(uri: string): FileAddress {
  const prefix = `${FILES_URI}/`;
  const parts = uri.startsWith(prefix) ? uri.slice(prefix.length).split('/').map(decode) : [];
  if (parts.length === 1 && parts[0] && !isFolder(parts[0])) {
    return { section: 'files', name: fileName(parts[0]) };
  }
  if (parts.length === 2 && parts[0] && isFolder(parts[0]) && parts[1]) {
    return { section: parts[0], name: fileName(parts[1]) };
  }
  const folder = uri === FILES_URI || (parts.length === 1 && parts[0] && isFolder(parts[0]));
  const what = folder ? 'is a folder, not a file' : 'names no file';
  throw new BadRequest(`${JSON.stringify(uri)} ${what}: use ${URI_SHAPES}.`);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A malformed escape cannot be a name we handed out; the shapes say what is.
    return '';
  }
}
