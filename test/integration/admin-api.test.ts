import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import * as schema from '../../src/http/admin/schemas.js';
import { adminClient, messageOf, type AdminClient } from '../helpers/admin.js';
import { gridHas, gridIdOf, startServer, type RunningServer } from '../helpers/server.js';

const site = inject('siteUrl');
const TOKEN = 'admin-api-bearer-token';
const ADMIN = 'admin-api-admin-token';

let dataDir: string;
let server: RunningServer;
let client: AdminClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-admin-'));
  server = await startServer({ FLOW_DATA_DIR: dataDir, MCP_AUTH_TOKEN: TOKEN, ADMIN_TOKEN: ADMIN });
  client = adminClient(server.url, ADMIN, TOKEN);
});

afterAll(async () => {
  for (const ws of ['adm-live', 'adm-end']) {
    await client.agent(ws, '/browser/end-browser').catch(() => undefined);
  }
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('who may call the admin API', () => {
  const paths = ['/admin/api/workspaces', '/admin/api/workspaces/adm-live'];

  it('answers 401 without the admin token, with the bearer token, or with a wrong one', async () => {
    for (const path of paths) {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }, { authorization: 'Bearer wrong' }] as Record<
        string,
        string
      >[]) {
        const answer = await fetch(server.url + path, { headers });
        expect(answer.status, path).toBe(401);
        expect(messageOf(await answer.json())).toContain('ADMIN_TOKEN');
      }
    }
  });

  it('answers 403 to a page of another origin, even with the token', async () => {
    const answer = await fetch(`${server.url}/admin/api/workspaces`, {
      headers: { authorization: `Bearer ${ADMIN}`, origin: 'https://evil.test' },
    });
    expect(answer.status).toBe(403);
    expect(messageOf(await answer.json())).toContain('ALLOWED_ORIGINS');
  });

  it('is closed (403) when no token is set at all', async () => {
    const open = await startServer({});
    try {
      const answer = await fetch(`${open.url}/admin/api/workspaces`);
      expect(answer.status).toBe(403);
      expect(messageOf(await answer.json())).toContain('ADMIN_TOKEN');
    } finally {
      await open.close();
    }
  });
});

describe('the workspaces listing and one workspace', () => {
  beforeAll(async () => {
    // A live browser with a page, a screenshot and a file; a library-only workspace; a directory no caller can name.
    expect((await client.agent('adm-live', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    expect((await client.agent('adm-live', '/browser/screenshot', { save: true, filename: 'shot' })).status).toBe(200);
    expect((await client.agent('adm-live', '/browser/print', { filename: 'kept' })).status).toBe(200);
    await mkdir(join(dataDir, 'adm-library', 'flows'), { recursive: true });
    await writeFile(join(dataDir, 'adm-library', 'flows', 'one.yaml'), 'steps:\n  - tool: navigate\n');
    await mkdir(join(dataDir, 'not a name'), { recursive: true });
  });

  it('lists every workspace with a record or a directory, with state, last page and counts', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    const byName = new Map(body.workspaces.map((w) => [w.name, w]));
    expect(byName.get('adm-live')).toMatchObject({
      state: 'live',
      global: false,
      last_page: { url: `${site}/table.html` },
      counts: { downloads: 0, screenshots: 1, files: 1, flows: 0 },
    });
    expect(Date.parse(byName.get('adm-live')?.last_activity ?? '')).toBeGreaterThan(Date.now() - 120_000);
    expect(byName.get('adm-library')).toMatchObject({ state: 'none', last_page: null, counts: { flows: 1 } });
    expect(body.grid).toBe(true);
  });

  it('lists a row it cannot read with its problem, and the rest whole', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    const bad = body.workspaces.find((w) => w.name === 'not a name');
    expect(bad?.problem).toMatch(/not a valid workspace name.*rename/);
    expect(body.workspaces.find((w) => w.name === 'adm-live')?.problem).toBeUndefined();
  });

  it('answers one workspace with its browser block and its three file sections', async () => {
    const { body } = await client.admin('GET', '/admin/api/workspaces/adm-live', { shape: schema.workspaceDetail });
    const gridId = await gridIdOf(server, 'adm-live');
    expect(body.browser).toMatchObject({ kind: 'chrome', grid_id: gridId, window: { width: 1280, height: 900 } });
    expect(body.browser?.version).toMatch(/^\d+\./);
    expect(body.browser?.node?.availability).toBe('UP');
    expect(body.files.screenshots.map((f) => f.name)).toEqual(['shot.png']);
    expect(body.files.files.map((f) => f.name)).toEqual(['kept.pdf']);
    expect(body.files.browser).toBe(true);
  });

  it('refuses an invalid workspace name with the rule, and an unknown one with a 404', async () => {
    const invalid = await client.admin('GET', `/admin/api/workspaces/${encodeURIComponent('no way')}`);
    expect(invalid.status).toBe(400);
    expect(messageOf(invalid.body)).toContain('A workspace name is');
    const unknown = await client.admin('GET', '/admin/api/workspaces/adm-nobody');
    expect(unknown.status).toBe(404);
    expect(messageOf(unknown.body)).toContain('GET /admin/api/workspaces');
  });

  it('ends a browser: the Grid no longer runs it and the workspace says none', async () => {
    expect((await client.agent('adm-end', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    const gridId = await gridIdOf(server, 'adm-end');
    const ended = await client.admin('DELETE', '/admin/api/workspaces/adm-end/browser', { shape: schema.browserEnded });
    expect(ended.body).toEqual({ workspace: 'adm-end', ended: true });
    // The Grid's /status follows a DELETE within moments, not at once.
    await vi.waitFor(async () => expect(await gridHas(gridId ?? '')).toBe(false), { timeout: 10_000, interval: 200 });
    const again = await client.admin('DELETE', '/admin/api/workspaces/adm-end/browser', { shape: schema.browserEnded });
    expect(again.body.ended).toBe(false);
    const { body } = await client.admin('GET', '/admin/api/workspaces/adm-end', { shape: schema.workspaceDetail });
    expect(body.state).toBe('none');
    expect(body.browser?.grid_id).toBeNull();
    expect(body.last_page?.url).toBe(`${site}/table.html`);
  });

  it('says reaped for a browser the Grid ended behind its back', async () => {
    expect((await client.agent('adm-reaped', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    const gridId = await gridIdOf(server, 'adm-reaped');
    await server.server.grid.end(gridId ?? '');
    await vi.waitFor(async () => expect(await gridHas(gridId ?? '')).toBe(false), { timeout: 10_000, interval: 200 });
    const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    expect(body.workspaces.find((w) => w.name === 'adm-reaped')).toMatchObject({
      state: 'reaped',
      counts: { downloads: null },
    });
  });
});

describe('the OpenAPI document', () => {
  it('lists every admin route under the tag admin, with its answer schema', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags: string[]; security?: unknown; responses: Record<string, unknown> }>>;
    };
    const admin = Object.entries(document.paths).filter(([path]) => path.startsWith('/admin/api/'));
    expect(admin.length).toBeGreaterThanOrEqual(8);
    for (const [path, operations] of admin) {
      for (const operation of Object.values(operations)) {
        expect(operation.tags, path).toEqual(['admin']);
        expect(operation.security, path).toEqual([{ admin: [] }]);
      }
    }
    expect(JSON.stringify(document.paths['/admin/api/workspaces'])).toContain('last_activity');
  });
});
