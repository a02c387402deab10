import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parse as parseDisposition } from 'content-disposition';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FileEntry } from '../../src/files/files.js';
import { MAX_LISTED_FILES } from '../../src/limits.js';
import { gridFetch } from '../../src/grid/grid.js';
import { poll } from '../../src/poll.js';
import { REPORT_CSV } from '../fixtures/site.js';
import { gridIdOf, startServer, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';

const site = inject('siteUrl');
const TOKEN = 'files-test-bearer-token';
const ADMIN = 'files-test-admin-token';
const BEARER = { authorization: `Bearer ${TOKEN}` };

type Answer = Record<string, unknown>;
type Entry = FileEntry;
interface Listing {
  workspace: string;
  count: number;
  files: Entry[];
  folders?: { name: string; uri: string; count: number; browser?: boolean }[];
  browser?: boolean;
}

let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-files-'));
  server = await startServer({ FLOW_DATA_DIR: dataDir, MCP_AUTH_TOKEN: TOKEN, ADMIN_TOKEN: ADMIN });
});

afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function send(
  method: string,
  path: string,
  options: { workspace?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...BEARER, ...options.headers };
  if (options.workspace) {
    headers['x-workspace'] = options.workspace;
  }
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  return fetch(server.url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

async function json(
  method: string,
  path: string,
  options: Parameters<typeof send>[2] = {},
): Promise<{ status: number; body: Answer }> {
  const response = await send(method, path, options);
  return { status: response.status, body: (await response.json()) as Answer };
}

const tools = toolClient(() => server.url, { headers: BEARER });

async function listing(workspace: string, path = '/files'): Promise<Listing> {
  const answer = await json('GET', path, { workspace });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as unknown as Listing;
}

async function bytes(
  path: string,
  options: Parameters<typeof send>[2] = {},
): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const response = await send('GET', path, options);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/** Clicks the fixture's download link and waits until the Grid lists the file. */
async function download(workspace: string): Promise<Listing> {
  await tools.in(workspace).ok('navigate', { url: `${site}/download.html` });
  await tools.in(workspace).ok('interact', { action: 'click', selector: { css: '#download' } });
  const downloads = () => listing(workspace, '/files?folder=downloads');
  const listed = await poll(
    async () => {
      const now = await downloads();
      return now.files.some((f) => f.name === 'report.csv') ? now : undefined;
    },
    10_000,
    100,
  );
  // Not listed in time: the caller's assertions on the listing say what is missing.
  return listed ?? downloads();
}

async function mcpClient(workspace: string): Promise<Client> {
  const url = new URL(`${server.url}/mcp`);
  url.searchParams.set('workspace', workspace);
  const client = new Client({ name: 'files-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: BEARER } }));
  return client;
}

function errorOf(answer: { body: Answer }): string {
  return (answer.body.error as { message: string }).message;
}

describe('downloads', () => {
  const ws = 'files-downloads';
  afterAll(async () => {
    await tools.in(ws).call('end_browser');
  });

  it('shows a real download in GET /files/downloads and workspace://files/downloads while the browser lives', async () => {
    const downloads = await download(ws);
    expect(downloads).toMatchObject({ workspace: ws, count: 1, browser: true });
    expect(downloads.files[0]).toMatchObject({
      name: 'report.csv',
      uri: 'workspace://files/downloads/report.csv',
      size: Buffer.byteLength(REPORT_CSV),
      content_type: 'text/csv',
      image: false,
    });
    const file = await bytes('/files/downloads/report.csv', { workspace: ws });
    expect(file.status).toBe(200);
    expect(file.body.toString()).toBe(REPORT_CSV);

    const root = await listing(ws);
    expect(root.folders).toEqual([
      { name: 'screenshots', uri: 'workspace://files/screenshots', count: 0 },
      { name: 'downloads', uri: 'workspace://files/downloads', count: 1, browser: true },
    ]);

    const mcp = await mcpClient(ws);
    try {
      const read = await mcp.readResource({ uri: 'workspace://files/downloads' });
      const overMcp = JSON.parse((read.contents[0] as { text: string }).text) as Listing;
      expect(overMcp.files.map((f) => f.uri)).toEqual(['workspace://files/downloads/report.csv']);
      const blob = await mcp.readResource({ uri: 'workspace://files/downloads/report.csv' });
      expect(blob.contents[0]).toMatchObject({ mimeType: 'text/csv' });
      expect(Buffer.from((blob.contents[0] as { blob: string }).blob, 'base64').toString()).toBe(REPORT_CSV);
      const completion = await mcp.complete({
        ref: { type: 'ref/resource', uri: 'workspace://files/downloads/{name}' },
        argument: { name: 'name', value: 'rep' },
      });
      expect(completion.completion.values).toEqual(['report.csv']);
    } finally {
      await mcp.close();
    }
  });

  it('keeps a download as a copy in Files, and the kept file survives the browser', async () => {
    const kept = await tools.in(ws).ok('keep_file', { uri: 'workspace://files/downloads/report.csv' });
    expect(kept).toMatchObject({
      from: 'workspace://files/downloads/report.csv',
      uri: 'workspace://files/report.csv',
      name: 'report.csv',
    });
    expect((await listing(ws, '/files?folder=downloads')).count).toBe(1); // a copy: the Grid cannot delete one file
    // Keeping a download again replaces the same-named file rather than adding "report (1).csv".
    expect(await tools.in(ws).ok('keep_file', { uri: 'workspace://files/downloads/report.csv' })).toMatchObject({
      name: 'report.csv',
    });

    await tools.in(ws).ok('end_browser');
    const root = await listing(ws);
    expect(root.files.map((f) => f.name)).toEqual(['report.csv']);
    expect(root.folders?.[1]).toEqual({
      name: 'downloads',
      uri: 'workspace://files/downloads',
      count: 0,
      browser: false,
    });
    expect((await bytes('/files/report.csv', { workspace: ws })).body.toString()).toBe(REPORT_CSV);

    const gone = await tools.in(ws).call('keep_file', { uri: 'workspace://files/downloads/report.csv' });
    expect(gone.status).toBe(404);
    expect(errorOf(gone)).toContain('no live browser');
  });
});

describe('a browser the Grid has reaped', () => {
  it('has no downloads, and keeping one says why', async () => {
    const ws = 'files-reaped';
    await tools.in(ws).ok('open_session');
    await gridFetch(`${inject('gridUrl')}/session/${(await gridIdOf(server, ws)) ?? ''}`, { method: 'DELETE' });
    expect(await listing(ws, '/files?folder=downloads')).toMatchObject({
      browser: false,
      count: 0,
      files: [],
    });
    const kept = await tools.in(ws).call('keep_file', { uri: 'workspace://files/downloads/report.csv' });
    expect(kept.status).toBe(404);
    expect(errorOf(kept)).toContain('no live browser');
  });
});

describe('screenshots and prints', () => {
  const ws = 'files-shots';
  beforeAll(async () => {
    await tools.in(ws).ok('navigate', { url: `${site}/table.html` });
  });
  afterAll(async () => {
    await tools.in(ws).call('end_browser');
  });

  it('saves a screenshot in Screenshots, still answers the image, and names a clash "name (1)"', async () => {
    const shot = await tools.in(ws).ok('screenshot', { save: true, filename: 'table' });
    expect(shot).toMatchObject({
      name: 'table.png',
      uri: 'workspace://files/screenshots/table.png',
      mime_type: 'image/png',
    });
    expect(
      Buffer.from(shot.data as string, 'base64')
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    const again = await tools.in(ws).ok('screenshot', { save: true, filename: 'table.png' });
    expect(again.name).toBe('table (1).png');

    const screenshots = await listing(ws, '/files?folder=screenshots');
    expect(screenshots.files.map((f) => f.name).sort()).toEqual(['table (1).png', 'table.png']);
    expect(screenshots.files[0]).toMatchObject({ content_type: 'image/png', image: true });
    const file = await bytes('/files/screenshots/table.png', { workspace: ws });
    expect(file.body.equals(Buffer.from(shot.data as string, 'base64'))).toBe(true);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(await readdir(join(dataDir, ws, 'screenshots'))).toContain('table.png');
  });

  it('lists the newest 100 of a folder of 150, and counts them all', async () => {
    const crowded = 'files-crowded';
    const dir = join(dataDir, crowded, 'screenshots');
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < 150; i++) {
      const file = join(dir, `shot-${i}.png`);
      await writeFile(file, 'png');
      await utimes(file, 1_700_000_000 + i, 1_700_000_000 + i);
    }
    const screenshots = await listing(crowded, '/files?folder=screenshots');
    expect(screenshots.count).toBe(150);
    expect(screenshots.files).toHaveLength(MAX_LISTED_FILES);
    expect(screenshots.files[0]?.name).toBe('shot-149.png');
    expect(screenshots.files.at(-1)?.name).toBe('shot-50.png');
  });

  it('answers the saved uri and the image block over MCP', async () => {
    const mcp = await mcpClient(ws);
    try {
      const result = (await mcp.callTool({ name: 'screenshot', arguments: { save: true } })) as {
        structuredContent: Answer;
        content: { type: string }[];
      };
      expect(result.structuredContent.uri).toMatch(/^workspace:\/\/files\/screenshots\/screenshot%20/);
      expect(result.content.some((c) => c.type === 'image')).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('keeping a screenshot moves it into Files; a clash lands as "name (1)"', async () => {
    await tools.in(ws).ok('screenshot', { save: true, filename: 'moved' });
    const kept = await tools.in(ws).ok('keep_file', { uri: 'workspace://files/screenshots/moved.png' });
    expect(kept).toMatchObject({
      from: 'workspace://files/screenshots/moved.png',
      uri: 'workspace://files/moved.png',
      name: 'moved.png',
    });
    expect((await listing(ws, '/files?folder=screenshots')).files.map((f) => f.name)).not.toContain('moved.png');
    expect((await listing(ws)).files.map((f) => f.name)).toContain('moved.png');

    await tools.in(ws).ok('screenshot', { save: true, filename: 'moved' });
    const second = await tools.in(ws).ok('keep_file', { uri: 'workspace://files/screenshots/moved.png' });
    expect(second).toMatchObject({ uri: 'workspace://files/moved%20(1).png', name: 'moved (1).png' });
    expect(second).not.toHaveProperty('kept_already');
    // A Files URI answers with that file, and says nothing moved.
    expect(await tools.in(ws).ok('keep_file', { uri: 'workspace://files/moved.png' })).toMatchObject({
      uri: 'workspace://files/moved.png',
      kept_already: true,
    });
  });

  it('a Files URI for a screenshot not kept yet is refused, naming the uri that keeps it', async () => {
    await tools.in(ws).ok('screenshot', { save: true, filename: 'waiting' });
    const guessed = await tools.in(ws).call('keep_file', { uri: 'workspace://files/waiting.png' });
    expect(guessed.status).toBe(404);
    expect(guessed.body.error).toMatchObject({
      message:
        'No file workspace://files/waiting.png is in Files, but workspace://files/screenshots/waiting.png is: pass that uri to keep it.',
    });
    expect((await listing(ws, '/files?folder=screenshots')).files.map((f) => f.name)).toContain('waiting.png');
  });

  it('prints into Files and answers the uri, not the bytes', async () => {
    const printed = await tools.in(ws).ok('print', { filename: 'orders' });
    expect(printed).toMatchObject({
      name: 'orders.pdf',
      uri: 'workspace://files/orders.pdf',
      mime_type: 'application/pdf',
    });
    expect(printed).not.toHaveProperty('data');
    const pdf = await bytes('/files/orders.pdf', { workspace: ws });
    expect(pdf.body.subarray(0, 4).toString('latin1')).toBe('%PDF');
    expect(pdf.body.byteLength).toBe(printed.bytes);
    expect((await tools.in(ws).ok('print', { filename: 'orders.pdf' })).name).toBe('orders (1).pdf');
  });
});

describe('upload_file by uri', () => {
  const ws = 'files-upload';
  afterAll(async () => {
    await tools.in(ws).call('end_browser');
  });

  async function uploaded(): Promise<{ name: string; size: number; content: string }> {
    await tools.in(ws).ok('assert', {
      script: "return document.getElementById('file-name').textContent !== ''",
      message: 'no file arrived',
    });
    const read = await tools.in(ws).ok('execute_script', {
      script:
        "const f = document.getElementById('file').files[0]; return {name: f.name, size: f.size, content: document.getElementById('file-content').textContent}",
    });
    return read.result as { name: string; size: number; content: string };
  }

  it('puts a download, a file in Files and a screenshot into the page', async () => {
    await download(ws);
    await tools.in(ws).ok('keep_file', { uri: 'workspace://files/downloads/report.csv' });
    const shot = await tools.in(ws).ok('screenshot', { save: true, filename: 'page' });

    for (const [uri, name] of [
      ['workspace://files/downloads/report.csv', 'report.csv'],
      ['workspace://files/report.csv', 'report.csv'],
    ]) {
      await tools.in(ws).ok('navigate', { url: `${site}/upload.html` });
      expect(await tools.in(ws).ok('upload_file', { selector: { css: '#file' }, file: uri })).toMatchObject({
        uploaded: name,
        bytes: Buffer.byteLength(REPORT_CSV),
      });
      expect(await uploaded()).toEqual({ name, size: Buffer.byteLength(REPORT_CSV), content: REPORT_CSV });
    }

    await tools.in(ws).ok('navigate', { url: `${site}/upload.html` });
    await tools.in(ws).ok('upload_file', { selector: { css: '#file' }, file: shot.uri, filename: 'renamed.png' });
    expect(await uploaded()).toMatchObject({ name: 'renamed.png', size: shot.bytes });
  });

  it('refuses two sources at once, and a uri that names no file', async () => {
    const both = await tools.in(ws).call('upload_file', {
      selector: { css: '#file' },
      text: 'x',
      file: 'workspace://files/report.csv',
    });
    expect(both.status).toBe(400);
    expect(errorOf(both)).toContain('exactly one of text, content (base64) or file');
    const none = await tools
      .in(ws)
      .call('upload_file', { selector: { css: '#file' }, file: 'workspace://files/nope.csv' });
    expect(none.status).toBe(404);
    expect(errorOf(none)).toContain('workspace://files lists');
  });
});

describe('signed links', () => {
  const ws = 'files-links';
  let entry: Entry;
  beforeAll(async () => {
    await tools.in(ws).ok('navigate', { url: `${site}/table.html` });
    await tools.in(ws).ok('screenshot', { save: true, filename: 'Q4 "final" 😀' });
    await tools.in(ws).ok('screenshot', { save: true, filename: 'other' });
    entry = (await listing(ws, '/files?folder=screenshots')).files.find((f) => f.name.startsWith('Q4')) as Entry;
  });
  afterAll(async () => {
    await tools.in(ws).call('end_browser');
  });

  it('opens a file without the bearer token, named per RFC 6266 even with a quote and an emoji', async () => {
    expect(entry.name).toBe('Q4 "final" 😀.png');
    const response = await fetch(server.url + entry.url);
    expect(response.status).toBe(200);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    const disposition = response.headers.get('content-disposition') ?? '';
    expect(disposition).toBe(
      `inline; filename="Q4 \\"final\\" ??.png"; filename*=UTF-8''Q4%20%22final%22%20%F0%9F%98%80.png`,
    );
    expect(parseDisposition(disposition).parameters.filename).toBe('Q4 "final" 😀.png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses a link whose path, expiry or signature was changed, or that lacks its signature', async () => {
    const url = new URL(server.url + entry.url);
    const exp = url.searchParams.get('exp') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    const otherPath = url.pathname.replace(/[^/]+$/, 'other.png');
    const workspacePath = url.pathname.replace(`/${ws}/`, '/files-shots/');
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    for (const tampered of [
      `${otherPath}?exp=${exp}&sig=${sig}`,
      `${workspacePath}?exp=${exp}&sig=${sig}`,
      `${url.pathname.replace('/screenshots/', '/files/')}?exp=${exp}&sig=${sig}`,
      `${url.pathname}?exp=${Number(exp) + 3600}&sig=${sig}`,
      `${url.pathname}?exp=${exp}&sig=${flipped}`,
      `${url.pathname}?exp=${exp}`,
    ]) {
      const response = await fetch(server.url + tampered);
      expect(response.status, tampered).toBe(403);
      expect(((await response.json()) as Answer).error).toMatchObject({ code: 'forbidden' });
    }
  });

  it('works for all three sections', async () => {
    await download(ws);
    await tools.in(ws).ok('keep_file', { uri: 'workspace://files/downloads/report.csv' });
    const downloads = await listing(ws, '/files?folder=downloads');
    const files = await listing(ws);
    for (const item of [downloads.files[0], files.files[0]]) {
      const response = await fetch(server.url + (item?.url ?? ''));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(REPORT_CSV);
      expect(response.headers.get('content-disposition')).toBe('inline; filename=report.csv');
    }
  });

  it('still needs the bearer token everywhere else under /files', async () => {
    expect((await fetch(`${server.url}/files/screenshots`, { headers: { 'x-workspace': ws } })).status).toBe(401);
    expect((await fetch(`${server.url}/files/signed`, { headers: { 'x-workspace': ws } })).status).toBe(401);
  });
});

describe('bad input', () => {
  const ws = 'files-bad';

  it('answers a clear 4xx with the valid shapes, and changes nothing', async () => {
    const cases: [Answer, number, string][] = [
      [{ uri: 'workspace://files/nothing-here.pdf' }, 404, 'workspace://files lists'],
      [{ uri: 'workspace://files/screenshots/nothing.png' }, 404, 'workspace://files/screenshots lists'],
      [{ uri: 'workspace://files/screenshots' }, 400, 'is a folder, not a file'],
      [{ uri: 'workspace://files' }, 400, 'workspace://files/screenshots/<name>'],
      [{ uri: 'workspace://files/flows/x' }, 400, 'workspace://files/downloads/<name>'],
      [{ uri: 'workspace://files/..%2F..%2Fetc%2Fpasswd' }, 400, 'without "/"'],
      [{ uri: 'workspace://files/screenshots/..' }, 400, 'not "." or ".."'],
      [{ uri: 'workspace://files/downloads/report.csv' }, 404, 'no live browser'],
    ];
    for (const [args, status, says] of cases) {
      const answer = await tools.in(ws).call('keep_file', args);
      expect(answer.status, JSON.stringify(args)).toBe(status);
      expect(errorOf(answer), JSON.stringify(args)).toContain(says);
    }
    expect(await readdir(dataDir)).not.toContain('etc');
  });

  it('points a folder asked for as a file to its listing', async () => {
    for (const folder of ['screenshots', 'downloads']) {
      const answer = await json('GET', `/files/${folder}`, { workspace: ws });
      expect(answer.status, folder).toBe(400);
      expect(errorOf(answer), folder).toBe(
        `/files/${folder} is a folder, not a file: list it with GET /files?folder=${folder}.`,
      );
      expect((await listing(ws, `/files?folder=${folder}`)).files).toEqual([]);
    }
  });

  it('refuses a file name with / or .. on every route', async () => {
    for (const path of ['/files/..%2Fsecret', '/files/screenshots/a%2Fb.png', '/files/downloads/..%2F..%2Fx']) {
      const answer = await json('GET', path, { workspace: ws });
      expect(answer.status, path).toBe(400);
      expect(errorOf(answer), path).toContain('A file name is 1-255 bytes');
    }
    // The router resolves a dot-dot segment before any route sees it: `/files/..` is `/`, the
    // admin page's redirect, and no file is ever named.
    const resolved = await fetch(`${server.url}/files/%2E%2E`, { headers: BEARER, redirect: 'manual' });
    expect(resolved.status).toBe(302);
    expect(resolved.headers.get('location')).toMatch(/\/admin\/$/);
    await tools.in(ws).ok('navigate', { url: `${site}/table.html` });
    const named = await tools.in(ws).call('screenshot', { save: true, filename: '../escape' });
    expect(named.status).toBe(400);
    expect(errorOf(named)).toContain('without "/"');
    const unsaved = await tools.in(ws).call('screenshot', { filename: 'x' });
    expect(unsaved.status).toBe(400);
    expect(errorOf(unsaved)).toContain('save: true');
    await tools.in(ws).call('end_browser');
  });

  it('keeps only from the two folders over the admin API, and lists only a named workspace', async () => {
    const folder = await json('PUT', `/admin/api/workspaces/${ws}/files/files/report.csv/kept`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(folder.status).toBe(400);
    expect(errorOf(folder)).toContain('…/files/screenshots/<name>/kept');
    const stateless = await json('GET', '/files');
    expect(stateless.status).toBe(400);
    expect(errorOf(stateless)).toContain('X-Workspace');
  });
});

describe('a server without FLOW_DATA_DIR', () => {
  let bare: RunningServer;
  const noData = toolClient(() => bare.url, { workspace: 'no-data' });
  beforeAll(async () => {
    bare = await startServer();
  });
  afterAll(async () => {
    await noData.call('end_browser');
    await bare.close();
  });

  it('answers save, print and keep with a 400 that says to set it', async () => {
    await noData.ok('navigate', { url: `${site}/table.html` });
    for (const [tool, args] of [
      ['screenshot', { save: true }],
      ['print', {}],
      ['keep_file', { uri: 'workspace://files/screenshots/a.png' }],
    ] as const) {
      const answer = await noData.call(tool, args);
      expect(answer.status, tool).toBe(400);
      expect(errorOf(answer), tool).toContain('FLOW_DATA_DIR');
    }
    expect((await noData.call('screenshot', {})).status).toBe(200);
  });
});

describe('operator actions (admin API)', () => {
  const ws = 'files-admin';
  const admin = { authorization: `Bearer ${ADMIN}` };
  const base = `/admin/api/workspaces/${ws}/files`;
  afterAll(async () => {
    await tools.in(ws).call('end_browser');
  });

  it('needs the admin token, not the bearer token', async () => {
    for (const headers of [{}, BEARER]) {
      const response = await fetch(server.url + base, { headers });
      expect(response.status).toBe(401);
      expect(JSON.stringify(await response.json())).toContain('ADMIN_TOKEN');
    }
    expect((await fetch(server.url + base, { headers: admin })).status).toBe(200);
    expect((await fetch(server.url + `${base}/screenshots`, { method: 'DELETE', headers: BEARER })).status).toBe(401);
  });

  it('clears screenshots, deletes one file in Files, and clears downloads only while the browser lives', async () => {
    await tools.in(ws).ok('navigate', { url: `${site}/table.html` });
    await tools.in(ws).ok('screenshot', { save: true, filename: 'a' });
    await tools.in(ws).ok('screenshot', { save: true, filename: 'b' });
    await tools.in(ws).ok('print', { filename: 'keep-me' });
    await tools.in(ws).ok('print', { filename: 'delete-me' });
    await download(ws);

    const sections = (await (await fetch(server.url + base, { headers: admin })).json()) as Record<
      string,
      Entry[] | boolean
    >;
    expect(sections).toMatchObject({ workspace: ws, browser: true });
    expect((sections.screenshots as Entry[]).length).toBe(2);

    const cleared = await fetch(server.url + `${base}/screenshots`, { method: 'DELETE', headers: admin });
    expect(await cleared.json()).toEqual({ workspace: ws, cleared: 2, names: ['a.png', 'b.png'] });
    expect((await listing(ws, '/files?folder=screenshots')).count).toBe(0);

    const deleted = await fetch(server.url + `${base}/delete-me.pdf`, { method: 'DELETE', headers: admin });
    expect(await deleted.json()).toEqual({ workspace: ws, deleted: 'delete-me.pdf' });
    expect((await listing(ws)).files.map((f) => f.name)).toEqual(['keep-me.pdf']);
    expect((await fetch(server.url + `${base}/delete-me.pdf`, { method: 'DELETE', headers: admin })).status).toBe(404);

    const downloads = await fetch(server.url + `${base}/downloads`, { method: 'DELETE', headers: admin });
    expect(await downloads.json()).toMatchObject({ workspace: ws, cleared: 1, names: [expect.any(String)] });
    expect((await listing(ws, '/files?folder=downloads')).count).toBe(0);

    await tools.in(ws).ok('end_browser');
    const noBrowser = await fetch(server.url + `${base}/downloads`, { method: 'DELETE', headers: admin });
    expect(noBrowser.status).toBe(404);
    expect((await listing(ws)).files.map((f) => f.name)).toEqual(['keep-me.pdf']);
  });
});
