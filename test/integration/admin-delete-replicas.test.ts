import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import * as schema from '../../src/http/admin/schemas.js';
import { adminClient } from '../helpers/admin.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { gridHas, rest } from '../helpers/server.js';

// Two `selenium-flow serve` processes sharing one real Redis and one data directory, on the shared Grid.

const TOKEN = 'delete-replicas-bearer';
const ADMIN = 'delete-replicas-admin';
const site = inject('siteUrl');
let redis: RunningRedis;
let dataDir: string;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  redis = await startRedis();
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-delete-replicas-'));
  const env = {
    GRID_URL: inject('gridUrl'),
    REDIS_URL: redis.url,
    FLOW_DATA_DIR: dataDir,
    MCP_AUTH_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
  };
  [a, b] = await Promise.all([spawnReplica(env), spawnReplica(env)]);
});

afterAll(async () => {
  await rest(b?.url ?? '', '/browser/end-browser', {}, as('rep-doomed')).catch(() => undefined);
  await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const as = (workspace: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace });

describe('deleting a workspace with two replicas on Redis', () => {
  it('deleted on replica A, the name starts clean on replica B', async () => {
    const workspace = 'rep-doomed';
    expect((await rest(b.url, '/browser/navigate', { url: `${site}/table.html` }, as(workspace))).status).toBe(200);
    expect((await rest(b.url, '/browser/screenshot', { save: true, filename: 'kept' }, as(workspace))).status).toBe(
      200,
    );
    const saved = await fetch(`${b.url}/flows/rep-flow`, {
      method: 'PUT',
      headers: { ...as(workspace), 'content-type': 'application/yaml' },
      body: 'steps:\n  - tool: navigate\n    args: {url: "https://example.test/"}\n',
    });
    expect(saved.status, await saved.text()).toBe(200);

    const onA = adminClient(a.url, ADMIN, TOKEN);
    const detail = await onA.admin('GET', `/admin/api/workspaces/${workspace}`, { shape: schema.workspaceDetail });
    const gridId = detail.body.browser?.grid_id ?? '';
    expect(gridId).not.toBe('');
    expect(detail.body.counts).toMatchObject({ screenshots: 1, flows: 1 });

    const deleted = await onA.admin('DELETE', `/admin/api/workspaces/${workspace}`, {
      shape: schema.workspaceDeleted,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ browser: true, lost: { counts: { screenshots: 1, flows: 1 } } });
    await vi.waitFor(async () => expect(await gridHas(gridId)).toBe(false), { timeout: 10_000, interval: 200 });

    // B's next calls on that name: no browser, no page, no files, no flows.
    const seen = await rest(b.url, '/workspace', undefined, as(workspace));
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ browser: null });
    expect(seen.body.url ?? null).toBeNull();
    expect((await rest(b.url, '/files', undefined, as(workspace))).body).toMatchObject({ count: 0 });
    // B keeps a flow listing for at most two seconds.
    await vi.waitFor(
      async () => {
        const flows = await fetch(`${b.url}/flows`, { headers: as(workspace) });
        expect(JSON.stringify(await flows.json())).not.toContain('rep-flow');
      },
      { timeout: 5_000, interval: 250 },
    );
    // A call that needs a browser gets a new one, through B.
    expect((await rest(b.url, '/browser/navigate', { url: `${site}/table.html` }, as(workspace))).status).toBe(200);
    const again = await onA.admin('GET', `/admin/api/workspaces/${workspace}`, { shape: schema.workspaceDetail });
    expect(again.body.browser?.grid_id).not.toBe(gridId);
    expect(again.body.counts).toMatchObject({ screenshots: 0, flows: 0 });
  });
});
