import { MAX_UPLOAD_BYTES } from '../limits.js';
import { BadRequest } from '../errors.js';
import { FILE_NAME_RULE, isFileName } from './names.js';

export interface UploadSource {
  text?: string;
  content?: string;
  /** a workspace://files… URI */
  file?: string;
  filename?: string;
}

/** Reads the file a workspace://files… URI names (the Files service, bound to the caller). */
export type ReadFileUri = (uri: string) => Promise<{ name: string; bytes: Uint8Array }>;

/**
 * The bytes an upload_file call names. A file on the server comes only through a
 * workspace://files… URI, which the Files service reads from the caller's own workspace: there
 * is no path argument, so no caller can hand a page another workspace's files, the global
 * flows, or anything else on this machine.
 */
export async function resolveUploadBytes(
  source: UploadSource,
  readFileUri?: ReadFileUri,
): Promise<{ name: string; bytes: Uint8Array }> {
  if (source.file !== undefined) {
    if (!readFileUri) {
      throw new BadRequest('file needs a workspace with files; pass the file as text or content instead.');
    }
    const file = await readFileUri(source.file);
    if (file.bytes.byteLength > MAX_UPLOAD_BYTES) {
      throw new BadRequest(
        `That file is ${file.bytes.byteLength} bytes, over the ${MAX_UPLOAD_BYTES}-byte upload limit; upload a smaller file.`,
      );
    }
    return { name: checkedName(source.filename ?? file.name), bytes: file.bytes };
  }
  const name = checkedName(source.filename ?? 'upload.txt');
  if (source.text !== undefined) {
    return { name, bytes: Buffer.from(source.text, 'utf8') };
  }
  return { name, bytes: Buffer.from(source.content ?? '', 'base64') };
}

function checkedName(name: string): string {
  // The name travels to the Grid node, which writes it to its disk: the rule every saved file keeps.
  if (!isFileName(name)) {
    throw new BadRequest(`filename is not a valid file name: ${FILE_NAME_RULE}; pass filename to name it.`);
  }
  return name;
}
