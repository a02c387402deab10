import { readFileSync, statSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { z } from 'zod';

/**
 * What vite builds (npm run build:ui) ships as one file, dist/ui.br: the admin page under `ui/`
 * and the apps under `apps/`, brotli over all of them together. They share most of their bytes
 * (noVNC is in the admin page and the live app; Svelte and the MCP SDK in both apps), and one
 * stream keeps each once: 254 kB, where the same files took 420 kB of the npm tarball one by one
 * (365 kB even with each brotli'd alone).
 * The format: the names and byte lengths as one JSON line, then the files' bytes in that order.
 */
export function packUi(files: ReadonlyMap<string, Buffer>): Buffer {
  const index = JSON.stringify([...files].map(([name, body]) => [name, body.length]));
  const raw = Buffer.concat([Buffer.from(`${index}\n`), ...files.values()]);
  return brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      // A window as long as the whole: a file repeated at the far end is still found.
      [constants.BROTLI_PARAM_LGWIN]: Math.min(
        constants.BROTLI_MAX_WINDOW_BITS,
        Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(raw.length + 16))),
      ),
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
}

const Index = z.array(z.tuple([z.string(), z.number().int().nonnegative()]));

export function unpackUi(archive: Buffer): Map<string, Buffer> {
  const raw = brotliDecompressSync(archive);
  const end = raw.indexOf(0x0a);
  const index = end < 0 ? undefined : Index.safeParse(JSON.parse(raw.subarray(0, end).toString('utf8')));
  const files = new Map<string, Buffer>();
  let at = end + 1;
  for (const [name, length] of index?.data ?? []) {
    files.set(name, raw.subarray(at, at + length));
    at += length;
  }
  if (!index?.success || at !== raw.length) {
    throw new Error('The build of the admin page and the apps (dist/ui.br) is damaged; run `npm run build` again.');
  }
  return files;
}

let read: { path: string; mtimeMs: number; size: number; files: ReadonlyMap<string, Buffer> } | undefined;

/**
 * The archive's files, decompressed once and kept while the file stays as it was (a build made
 * while the server runs is read on the next request); undefined when there is none (not built).
 */
export function readUi(path: string): ReadonlyMap<string, Buffer> | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (read?.path !== path || read.mtimeMs !== stat.mtimeMs || read.size !== stat.size) {
    read = { path, mtimeMs: stat.mtimeMs, size: stat.size, files: unpackUi(readFileSync(path)) };
  }
  return read.files;
}
