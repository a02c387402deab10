import { BadRequest } from '../errors.js';

/** The three sections of a workspace's files, in the order a person sees them. */
export const SECTIONS = ['downloads', 'screenshots', 'files'] as const;
export type Section = (typeof SECTIONS)[number];
/** The two folders inside Files; each is a name no file in Files may take. */
export const FOLDERS = ['screenshots', 'downloads'] as const;
export type Folder = (typeof FOLDERS)[number];

export const FILE_NAME_RULE =
  'A file name is 1-255 bytes without "/", "\\" or control characters, and is not "." or ".." (e.g. "report.csv" or "Q3 summary (1).pdf")';

// Control characters would let a name split a header or a log line; "/" and "\" would
// make it a path. Everything else a site or browser chose is kept exactly as it is.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[/\\\u0000-\u001f\u007f]/;

export function isFileName(name: string): boolean {
  return (
    name.length > 0 && name !== '.' && name !== '..' && !FORBIDDEN.test(name) && Buffer.byteLength(name, 'utf8') <= 255
  );
}

/** Validated, never slugged: a name that needs fixing is the caller's to fix. */
export function fileName(name: string, what = 'file name'): string {
  if (!isFileName(name)) {
    throw new BadRequest(`${JSON.stringify(name)} is not a valid ${what}: ${FILE_NAME_RULE}.`);
  }
  return name;
}

export function isSection(name: string): name is Section {
  return SECTIONS.some((section) => section === name);
}

export function isFolder(name: string): name is Folder {
  return FOLDERS.some((folder) => folder === name);
}

/**
 * `name`, then `name (1)`, `name (2)` … the way a browser names a second download. The
 * folder names are taken inside Files, so a file arriving there as "screenshots" lands as
 * "screenshots (1)".
 */
export function* candidateNames(name: string, inFiles: boolean): Generator<string> {
  const dot = name.lastIndexOf('.');
  const [stem, suffix] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  if (!(inFiles && isFolder(name))) {
    yield name;
  }
  for (let n = 1; ; n++) {
    yield `${stem} (${n})${suffix}`;
  }
}

/** A name ending in `extension` (".png"), added when the caller left it off. */
export function withExtension(name: string, extension: string): string {
  return name.toLowerCase().endsWith(extension) ? name : `${name}${extension}`;
}

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  csv: 'text/csv',
  txt: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  htm: 'text/html',
  zip: 'application/zip',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export function contentTypeOf(name: string): string {
  return typeByExtension(name) || 'application/octet-stream';
}

/** A file's type by its extension, as a browser gives a picked file one: empty when it knows none. */
export function typeByExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || '';
}

export function isImage(contentType: string): boolean {
  return contentType.startsWith('image/');
}

/**
 * Types a browser may show in place rather than save. Nothing that can run script: a
 * downloaded HTML or SVG page served inline would run on this server's origin.
 */
const SHOWN_IN_PLACE = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
  'text/csv',
]);

export function servedInline(contentType: string): boolean {
  return SHOWN_IN_PLACE.has(contentType);
}
