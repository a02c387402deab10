import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMcp, startServer, type RunningServer } from '../helpers/server.js';

const site = inject('siteUrl');
const TOKEN = 'quotas-bearer-token-1';
const ADMIN = 'quotas-admin-token-1';
let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'quotas-'));
  server = await startServer({
    FLOW_DATA_DIR: dataDir,
    MCP_AUTH_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    WORKSPACES_PER_TOKEN: '2',
    WORKSPACE_DISK_QUOTA: '1',
  });
});
afterAll(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function saveFlow(workspace: string, name: string, document: object) {
  const response = await fetch(`${server.url}/flows/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace, 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
}

async function admin(method: string, path: string) {
  const response = await fetch(`${server.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** About 240 KiB on disk: thirty navigations to long addresses. */
const big = {
  steps: Array.from({ length: 30 }, (_, i) => ({
    tool: 'navigate',
    args: { url: `${site}/table.html?${i}=${'b'.repeat(8000)}` },
  })),
};
const small = { steps: [{ tool: 'outline', args: {} }] };

describe('quotas', () => {
  it("refuses a token's workspace past WORKSPACES_PER_TOKEN with a 409, until an operator deletes one", async () => {
    expect((await saveFlow('quota-a', 'one', small)).status).toBe(200);
    expect((await saveFlow('quota-b', 'one', small)).status).toBe(200);
    const refused = await saveFlow('quota-c', 'one', small);
    expect(refused).toEqual({
      status: 409,
      body: {
        error: {
          code: 'quota_exceeded',
          message:
            'This token already keeps 2 workspaces (quota-a, quota-b), the most WORKSPACES_PER_TOKEN (2) allows; use one of them, or ask an operator to delete ones it no longer needs on the admin page, then call again.',
        },
      },
    });
    // Nothing was made for it: no directory, no row on the admin page.
    const names = ((await admin('GET', '/workspaces')).body.workspaces as { name: string }[]).map((w) => w.name);
    expect(names).not.toContain('quota-c');
    expect((await admin('DELETE', '/workspaces/quota-b')).status).toBe(200);
    expect((await saveFlow('quota-c', 'one', small)).status).toBe(200);
  });

  it("refuses a save past the workspace's disk quota on every door, and shows its use against it", async () => {
    let n = 0;
    let refused: Awaited<ReturnType<typeof saveFlow>> | undefined;
    while (!refused && n < 10) {
      const answer = await saveFlow('quota-a', `big-${n++}`, big);
      refused = answer.status === 200 ? undefined : answer;
    }
    expect(refused?.status).toBe(409);
    expect(refused?.body.error?.code).toBe('quota_exceeded');
    expect(refused?.body.error?.message).toMatch(
      /^Workspace quota-a keeps \d+ KiB on the server's disk and its quota \(WORKSPACE_DISK_QUOTA\) is 1 MiB: this save \(\d+ KiB\) would pass it, so nothing was saved; free room by deleting flows it no longer needs \(delete_flow\)/,
    );
    const mcp = await connectMcp(server.url, '2025-11-25', {
      workspace: 'quota-a',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    try {
      const answer = await mcp.call('save_flow', { name: 'one-more', document: big });
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('WORKSPACE_DISK_QUOTA');
    } finally {
      await mcp.close();
    }
    const row = ((await admin('GET', '/workspaces')).body.workspaces as { name: string; disk: unknown }[]).find(
      (w) => w.name === 'quota-a',
    );
    expect(row?.disk).toMatchObject({ quota: 2 ** 20 });
    expect((row?.disk as { used: number }).used).toBeGreaterThan(0.75 * 2 ** 20);
    expect((row?.disk as { used: number }).used).toBeLessThanOrEqual(2 ** 20);
  });
});
