import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

/** Issue 23: every size has a limit, and past it a 4xx that names it — never a 500. */
const site = inject('siteUrl');
const WS = 'limits';
const HEADERS = { 'X-Workspace': WS };

let running: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'limits-'));
  await mkdir(join(dataDir, 'a-directory'));
  running = await startServer({ FLOW_DATA_DIR: dataDir, MAX_BODY_BYTES: String(2 * 1024 * 1024) });
  expect((await rest(running.url, '/browser/navigate', { url: `${site}/upload.html` }, HEADERS)).status).toBe(200);
});
afterAll(async () => {
  await rest(running.url, '/browser/end-browser', {}, HEADERS);
  await running.close();
});

const message = (body: Record<string, unknown>) => (body.error as { message?: string } | undefined)?.message ?? '';

async function refused(path: string, body: unknown, status: number, says: RegExp) {
  const answer = await rest(running.url, path, body, HEADERS);
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
  expect(message(answer.body)).toMatch(says);
}

describe('limits over REST, on a real browser', () => {
  it('refuses text, scripts, selectors and URLs past their limits, naming them', async () => {
    await refused(
      '/browser/write',
      { selector: { css: '#file' }, text: 'x'.repeat(1024 * 1024) },
      400,
      /^text is at most 20000 characters/,
    );
    await refused(
      '/browser/execute-script',
      { script: `return 1;${' '.repeat(100_001)}` },
      400,
      /at most 100000 characters/,
    );
    await refused(
      '/browser/extract',
      { selector: { css: `#${'a'.repeat(5000)}` } },
      400,
      /^selector\.css must be at most 4096 characters long \(got 5001\); pass a shorter selector\.css\.$/,
    );
    await refused(
      '/browser/navigate',
      { url: `${site}/?${'a'.repeat(9000)}` },
      400,
      /^url must be at most 8192 characters long \(got \d+\); pass a shorter url\.$/,
    );
  });

  it('refuses an execute_script answer over 1 MB, and answers one under it', async () => {
    await refused(
      '/browser/execute-script',
      { script: "return 'x'.repeat(1100000)" },
      400,
      /over the 1000000-byte limit of execute_script/,
    );
    await refused(
      '/browser/execute-script',
      { script: 'return Array.from({length: 3000000}, (_, i) => i % 10)' },
      400,
      /over the 1000000-byte limit/,
    );
    await refused(
      '/browser/execute-script',
      { script: "return {a: 'é'.repeat(600000)}" },
      400,
      /over the 1000000-byte limit/,
    );
    const fine = await rest(
      running.url,
      '/browser/execute-script',
      { script: "return ['x'.repeat(900000), {k: [1, 2]}]" },
      HEADERS,
    );
    expect(fine.status).toBe(200);
    expect((fine.body.result as string[])[0]).toHaveLength(900000);
  });

  it('cuts extract of every match at max_chars in the page, nulls counted too', async () => {
    const made = await rest(
      running.url,
      '/browser/execute-script',
      {
        script:
          "const box = document.createElement('div'); box.id = 'many'; box.innerHTML = '<p>0123456789</p>'.repeat(100000); document.body.append(box); return box.children.length",
      },
      HEADERS,
    );
    expect(made.body.result).toBe(100000);
    const texts = await rest(
      running.url,
      '/browser/extract',
      { selector: { css: '#many p' }, all: true, max_chars: 1000 },
      HEADERS,
    );
    expect(texts.body.truncated).toBe(true);
    expect((texts.body.values as string[]).length).toBe(100);
    const nulls = await rest(
      running.url,
      '/browser/extract',
      { selector: { css: '#many p' }, all: true, what: 'attribute', attribute: 'data-none', max_chars: 1000 },
      HEADERS,
    );
    expect(nulls.body.truncated).toBe(true);
    expect((nulls.body.values as null[]).length).toBe(250);
    await rest(running.url, '/browser/execute-script', { script: "document.getElementById('many').remove()" }, HEADERS);
  });

  it('refuses a body over MAX_BODY_BYTES with a 413 naming it', async () => {
    await refused(
      '/browser/execute-script',
      { script: 'return 1', args: ['x'.repeat(3 * 1024 * 1024)] },
      413,
      /larger than 2097152 bytes \(MAX_BODY_BYTES\)/,
    );
  });

  it('refuses upload names with a newline or over 255 bytes; a 255-byte name uploads', async () => {
    await refused(
      '/browser/upload-file',
      { selector: { css: '#file' }, text: 'hi', filename: 'a\nb.txt' },
      400,
      /filename: A file name is 1-255 bytes without .* control characters/,
    );
    await refused(
      '/browser/upload-file',
      { selector: { css: '#file' }, text: 'hi', filename: `${'é'.repeat(128)}.txt` },
      400,
      /1-255 bytes/,
    );
    const longest = `${'n'.repeat(251)}.txt`;
    const uploaded = await rest(
      running.url,
      '/browser/upload-file',
      { selector: { css: '#file' }, text: 'hi', filename: longest },
      HEADERS,
    );
    expect(uploaded.status, JSON.stringify(uploaded.body).slice(0, 300)).toBe(200);
    expect(uploaded.body.uploaded).toBe(longest);
  });

  it('runs flows whose parameters share one $id, each many times, never a 500', async () => {
    const step = { tool: 'execute_script', args: { script: "return typeof '${p}'" } };
    for (const [name, type] of [
      ['id-string', 'string'],
      ['id-enum', 'string'],
    ] as const) {
      const parameters = {
        $id: 'https://limits.example/params',
        type: 'object',
        properties: { p: { type, ...(name === 'id-enum' ? { enum: ['x'] } : {}) } },
      };
      const saved = await fetch(`${running.url}/flows/${name}`, {
        method: 'PUT',
        headers: { ...HEADERS, 'content-type': 'application/json' },
        body: JSON.stringify({ parameters, steps: [step] }),
      });
      expect(saved.status).toBe(200);
    }
    for (let i = 0; i < 5; i++) {
      expect((await rest(running.url, '/flows/id-string/run', { params: { p: 'y' } }, HEADERS)).status).toBe(200);
      expect((await rest(running.url, '/flows/id-enum/run', { params: { p: 'x' } }, HEADERS)).status).toBe(200);
      await refused('/flows/id-enum/run', { params: { p: 'y' } }, 400, /^Invalid params: p must be "x"\.$/);
    }
  });

  it('saves, lists, fetches and links a file named with 255 bytes', async () => {
    const name = `${'é'.repeat(125)}.png`;
    expect(Buffer.byteLength(name)).toBe(254);
    const shot = await rest(running.url, '/browser/screenshot', { save: true, filename: name }, HEADERS);
    expect(shot.status, JSON.stringify(shot.body).slice(0, 300)).toBe(200);
    expect(shot.body.name).toBe(name);
    const listing = await rest(running.url, '/files?folder=screenshots', undefined, HEADERS);
    const entry = (listing.body.files as { name: string; url: string }[]).find((f) => f.name === name);
    expect(entry).toBeDefined();
    const fetched = await fetch(`${running.url}/files/screenshots/${encodeURIComponent(name)}`, { headers: HEADERS });
    expect(fetched.status).toBe(200);
    const linked = await fetch(running.url + (entry?.url ?? ''));
    expect(linked.status).toBe(200);
    await refused('/browser/screenshot', { save: true, filename: `${'é'.repeat(128)}` }, 400, /1-255 bytes/);
  });
});
