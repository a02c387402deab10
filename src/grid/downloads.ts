import { z } from 'zod';
import { GridUnavailable, PayloadTooLarge } from '../errors.js';
import { MAX_DOWNLOAD_BYTES } from '../limits.js';
import { fflate } from '../lazy.js';
import { gridFetch } from './fetch.js';
import { BrowserGone } from './failures.js';
import type { Grid } from './grid.js';

export interface DownloadedFile {
  name: string;
  size: number;
  created: Date;
}

/** The Grid's listing of a browser's downloads; a file's fields are read one by one, as Grids vary. */
const FilesAnswer = z.object({
  value: z
    .object({
      files: z
        .array(
          z.object({ name: z.unknown(), size: z.unknown(), creationTime: z.unknown(), lastModifiedTime: z.unknown() }),
        )
        .optional(),
    })
    .optional(),
});

/** The Grid's answer to reading one download: the file, zipped, in base64. */
const ContentsAnswer = z.object({ value: z.object({ contents: z.string() }) });

/**
 * The Grid's managed downloads for one browser (`se:downloadsEnabled`): list, read one, and
 * delete all — the whole API; the Grid has no per-file delete and no write.
 */
export class GridDownloads {
  constructor(private readonly grid: Pick<Grid, 'url' | 'isAlive'>) {}

  async list(gridId: string): Promise<DownloadedFile[]> {
    const response = await gridFetch(this.filesUrl(gridId), { method: 'GET' });
    await this.check(response, gridId, 'list the downloads');
    const answer = FilesAnswer.safeParse(await response.json());
    if (!answer.success) {
      throw new GridUnavailable('The Grid answered its list of downloads in a shape no Grid uses; retry.');
    }
    return (answer.data.value?.files ?? []).flatMap((f) =>
      typeof f.name === 'string' && !f.name.endsWith('.crdownload') // Chromium's file in progress
        ? [
            {
              name: f.name,
              size: typeof f.size === 'number' ? f.size : 0,
              created: new Date(
                typeof f.lastModifiedTime === 'number' ? f.lastModifiedTime : Number(f.creationTime ?? 0),
              ),
            },
          ]
        : [],
    );
  }

  /** The bytes of one download, or undefined when the browser has none by that name. */
  async read(gridId: string, name: string): Promise<Uint8Array | undefined> {
    const response = await gridFetch(this.filesUrl(gridId), {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ name }),
    });
    if (response.status === 500) {
      // The Grid's answer to an unknown name ("Cannot find file [x]").
      const text = await response.text();
      if (/cannot find file/i.test(text)) {
        return undefined;
      }
      // Read just after the browser ended, the node answers for a session it no longer has.
      if (await this.endedJustNow(gridId, text)) {
        throw new BrowserGone();
      }
      throw new GridUnavailable(`The Grid failed to read a download (HTTP 500); retry.`);
    }
    await this.check(response, gridId, 'read a download');
    // The Grid zips the file and sends it in base64: a file of random bytes comes at its size.
    const body = await textWithin(response, Math.ceil(MAX_DOWNLOAD_BYTES / 3) * 4 + 64 * 1024);
    if (body === undefined) {
      throw tooLarge(name);
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const answer = ContentsAnswer.safeParse(json);
    if (!answer.success) {
      throw new GridUnavailable('The Grid answered a download without its contents; retry.');
    }
    const contents = answer.data.value.contents;
    // The contents are a ZIP with the one file in it. A file of zeros zips to almost nothing: its
    // size inflated is read before it is inflated, or a page's 2 GB download stalls the server.
    let over = false;
    const entries = fflate().unzipSync(Buffer.from(contents, 'base64'), {
      filter: (file) => (file.originalSize > MAX_DOWNLOAD_BYTES ? ((over = true), false) : true),
    });
    if (over) {
      throw tooLarge(name);
    }
    return entries[name] ?? Object.values(entries)[0] ?? new Uint8Array();
  }

  async clear(gridId: string): Promise<void> {
    const response = await gridFetch(this.filesUrl(gridId), { method: 'DELETE' });
    await this.check(response, gridId, 'clear the downloads');
  }

  /**
   * Asked in the moment after a session ended, the router may still route to the node, which
   * answers 500 "Cannot find downloads file system" (seen in 7 of 16 tries; a read right after a
   * Firefox session ended, 3 of 6). A node without
   * managed downloads says the same of a live session, so the session decides which it is.
   */
  private async endedJustNow(gridId: string, answer: string): Promise<boolean> {
    if (!/cannot find downloads file system/i.test(answer)) {
      return false;
    }
    return !(await this.grid.isAlive(gridId));
  }

  private filesUrl(gridId: string): string {
    return `${this.grid.url}/session/${encodeURIComponent(gridId)}/se/files`;
  }

  private async check(response: Response, gridId: string, doing: string): Promise<void> {
    if (response.ok) {
      return;
    }
    const text = await response.text();
    if (response.status === 404 || (await this.endedJustNow(gridId, text))) {
      throw new BrowserGone(); // the Grid no longer knows the session: ended or reaped
    }
    throw new GridUnavailable(
      `The Grid refused to ${doing} (HTTP ${response.status}); check that the node allows managed downloads, then retry.`,
    );
  }
}

function tooLarge(name: string): PayloadTooLarge {
  return new PayloadTooLarge(
    `The download ${JSON.stringify(name.slice(0, 100))} is over the ${MAX_DOWNLOAD_BYTES}-byte limit of what this server reads of a download; it stays in the browser's Downloads, unread.`,
  );
}

/** The body as text, or undefined once it passes `maxBytes` (the rest is not read). */
async function textWithin(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return response.body ? undefined : '';
  }
  const chunks: Uint8Array[] = [];
  let read = 0;
  // Leaving the loop early cancels the stream: the rest of the body is never read.
  for await (const chunk of response.body) {
    read += chunk.byteLength;
    if (read > maxBytes) {
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
