import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import * as schema from '../../src/http/admin/schemas.js';
import { adminClient, messageOf, type AdminClient } from '../helpers/admin.js';
import { gridHas, gridIdOf, startServer, type RunningServer } from '../helpers/server.js';

const site = inject('siteUrl');
const TOKEN = 'admin-delete-bearer-token';
const ADMIN = 'admin-delete-admin-token';

let dataDir: string;
let outside: string;
let server: RunningServer;
let client: AdminClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-admin-delete-'));
  outside = await mkdtemp(join(tmpdir(), 'selenium-flow-outside-'));
  server = await startServer({ FLOW_DATA_DIR: dataDir, MCP_AUTH_TOKEN: TOKEN, ADMIN_TOKEN: ADMIN });
  client = adminClient(server.url, ADMIN, TOKEN);
});

afterAll(async () => {
  await client.agent('del-full', '/browser/end-browser').catch(() => undefined);
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const FLOW = 'description: open the table\nsteps:\n  - tool: navigate\n    args: {url: "https://example.test/"}\n';

describe('deleting a workspace through the admin API', () => {
  it('shows what it holds on disk, then deletes it: the browser ends, files and flows go, the name starts clean', async () => {
    // A workspace with a live browser, a download, a screenshot, a file and a flow.
    expect((await client.agent('del-full', '/browser/navigate', { url: `${site}/download.html` })).status).toBe(200);
    expect(
      (await client.agent('del-full', '/browser/interact', { action: 'click', selector: { css: '#download' } })).status,
    ).toBe(200);
    expect((await client.agent('del-full', '/browser/screenshot', { save: true, filename: 'shot' })).status).toBe(200);
    expect((await client.agent('del-full', '/browser/print', { filename: 'kept' })).status).toBe(200);
    const saved = await fetch(`${server.url}/flows/del-flow`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'del-full', 'content-type': 'application/yaml' },
      body: FLOW,
    });
    expect(saved.status, await saved.text()).toBe(200);
    const gridId = await gridIdOf(server, 'del-full');

    // The listing measures each section; the download lands on the node a moment after the click.
    let row: schema.WorkspaceRow | undefined;
    await vi.waitFor(
      async () => {
        const { body } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
        row = body.workspaces.find((w) => w.name === 'del-full');
        expect(row?.counts).toEqual({ downloads: 1, screenshots: 1, files: 1, flows: 1 });
      },
      { timeout: 15_000, interval: 300 },
    );
    const shot = await lstat(join(dataDir, 'del-full', 'screenshots', 'shot.png'));
    expect(row?.bytes.screenshots).toBe(shot.size);
    expect(row?.bytes.flows).toBe(Buffer.byteLength(FLOW));
    expect(row?.bytes.files).toBeGreaterThan(1000); // a printed PDF
    expect(row?.bytes.downloads).toBeGreaterThan(0);

    const deleted = await client.admin('DELETE', '/admin/api/workspaces/del-full', { shape: schema.workspaceDeleted });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({
      workspace: 'del-full',
      deleted: true,
      browser: true,
      lost: { counts: row?.counts, bytes: row?.bytes },
    });
    await vi.waitFor(async () => expect(await gridHas(gridId ?? '')).toBe(false), { timeout: 10_000, interval: 200 });
    await expect(lstat(join(dataDir, 'del-full'))).rejects.toMatchObject({ code: 'ENOENT' });
    const { body: listed } = await client.admin('GET', '/admin/api/workspaces', { shape: schema.workspaceList });
    expect(listed.workspaces.map((w) => w.name)).not.toContain('del-full');

    // An agent's next call on that name starts clean: no page, no files, no flows, a new browser.
    const fresh = await client.agent('del-full', '/workspace', undefined, 'GET');
    expect(fresh.body).toMatchObject({ browser: null });
    expect(fresh.body.url ?? null).toBeNull();
    const flows = await fetch(`${server.url}/flows`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'del-full' },
    });
    expect(JSON.stringify(await flows.json())).not.toContain('del-flow');
    const files = await client.agent('del-full', '/files', undefined, 'GET');
    expect(files.body).toMatchObject({ count: 0 });
    expect((await client.agent('del-full', '/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    expect(await gridIdOf(server, 'del-full')).not.toBe(gridId);
  });

  it('reports the deletion in the audit events', async () => {
    const { body } = await client.admin('GET', '/admin/api/events', { shape: schema.eventHistory });
    expect(body.events.find((e) => e.type === 'workspace_deleted' && e.workspace === 'del-full')).toMatchObject({
      by: 'operator',
      browser: true,
      downloads: 1,
      screenshots: 1,
      files: 1,
      flows: 1,
    });
  });

  it('never follows a link out of the data directory: the link goes, what it points at stays', async () => {
    const precious = join(outside, 'precious.txt');
    await writeFile(precious, 'not the workspace’s');
    await mkdir(join(dataDir, 'del-links', 'files'), { recursive: true });
    await symlink(outside, join(dataDir, 'del-links', 'files', 'elsewhere'));
    await symlink(outside, join(dataDir, 'del-links', 'flows'));
    const answer = await client.admin('DELETE', '/admin/api/workspaces/del-links', { shape: schema.workspaceDeleted });
    expect(answer.status, answer.text).toBe(200);
    await expect(lstat(join(dataDir, 'del-links'))).rejects.toMatchObject({ code: 'ENOENT' });
    // A link in place of a workspace directory is no workspace: not listed, not deleted, not followed.
    await symlink(outside, join(dataDir, 'del-linked'));
    expect((await client.admin('DELETE', '/admin/api/workspaces/del-linked')).status).toBe(404);
    expect(await readFile(precious, 'utf8')).toBe('not the workspace’s');
  });

  it('refuses global, a bad name with the rule, and an unknown one with a 404', async () => {
    const global = await client.admin('DELETE', '/admin/api/workspaces/global');
    expect(global.status).toBe(400);
    expect(messageOf(global.body)).toContain('delete its flows one by one');
    for (const bad of ['.hidden', 'no way', '../etc']) {
      const refused = await client.admin('DELETE', `/admin/api/workspaces/${encodeURIComponent(bad)}`);
      expect({ bad, status: refused.status }).toEqual({ bad, status: 400 });
      expect(messageOf(refused.body)).toContain('A workspace name is');
    }
    const unknown = await client.admin('DELETE', '/admin/api/workspaces/del-nobody');
    expect(unknown.status).toBe(404);
    expect(messageOf(unknown.body)).toContain('GET /admin/api/workspaces');
  });

  it('needs the admin token: the bearer token is refused', async () => {
    const answer = await fetch(`${server.url}/admin/api/workspaces/del-full`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status).toBe(401);
  });
});
