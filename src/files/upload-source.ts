import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import { MAX_UPLOAD_BYTES } from '../limits.js';
import { BadRequest, NotFound } from '../errors.js';
import { FILE_NAME_RULE, isFileName } from './names.js';

export interface UploadSource {
  text?: string;
  content?: string;
  path?: string;
  /** a workspace://files… URI */
  file?: string;
  filename?: string;
}

/** Reads the file a workspace://files… URI names (the Files service, bound to the caller). */
export type ReadFileUri = (uri: string) => Promise<{ name: string; bytes: Uint8Array }>;

/**
 * The bytes an upload_file call names. A path is confined to the data directory: an agent
 * must not be able to hand any file on this machine to a web page.
 */
export async function resolveUploadBytes(
  source: UploadSource,
  dataDir: string | undefined,
  readFileUri?: ReadFileUri,
): Promise<{ name: string; bytes: Uint8Array }> {
  if (source.file !== undefined) {
    if (!readFileUri) {
      throw new BadRequest('file needs a workspace with files; pass the file as text or content instead.');
    }
    const file = await readFileUri(source.file);
    if (file.bytes.byteLength > MAX_UPLOAD_BYTES) {
      throw new BadRequest(`That file is ${file.bytes.byteLength} bytes, over the ${MAX_UPLOAD_BYTES}-byte upload limit; upload a smaller file.`);
    }
    return { name: checkedName(source.filename ?? file.name), bytes: file.bytes };
  }
  const name = checkedName(source.filename ?? (source.path ? basename(source.path) : 'upload.txt'));
  if (source.text !== undefined) {
    return { name, bytes: Buffer.from(source.text, 'utf8') };
  }
  if (source.content !== undefined) {
    return { name, bytes: Buffer.from(source.content, 'base64') };
  }
  return { name, bytes: await readConfined(source.path ?? '', dataDir) };
}

function checkedName(name: string): string {
  // The name travels to the Grid node, which writes it to its disk: the rule every saved file keeps.
  if (!isFileName(name)) {
    throw new BadRequest(`filename is not a valid file name: ${FILE_NAME_RULE}; pass filename to name it.`);
  }
  return name;
}

async function readConfined(path: string, dataDir: string | undefined): Promise<Uint8Array> {
  if (!dataDir) {
    throw new BadRequest('path needs the server to have a data directory (FLOW_DATA_DIR); pass the file as text or content instead.');
  }
  const root = await realpath(dataDir);
  let real: string;
  try {
    real = await realpath(resolve(root, path));
  } catch {
    throw new NotFound('No file at that path under the data directory; check the name, or pass the file as text or content.');
  }
  if (!real.startsWith(root + sep)) {
    throw new BadRequest('path must name a file inside the server data directory; pass the file as text or content instead.');
  }
  const info = await stat(real);
  if (!info.isFile()) {
    throw new BadRequest('path names a directory (or something else that is not a file); name one file under the data directory.');
  }
  if (info.size > MAX_UPLOAD_BYTES) {
    throw new BadRequest(`The file at path is ${info.size} bytes, over the ${MAX_UPLOAD_BYTES}-byte upload limit; upload a smaller file.`);
  }
  return readFile(real);
}
