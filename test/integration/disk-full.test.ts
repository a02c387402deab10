import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DISK_FULL } from '../../src/disk.js';
import { connectMcp, startServer, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';

/*
 * The data directory on a small filesystem of its own (a 1 MiB tmpfs), filled until a save
 * answers 507: what was saved before reads back byte for byte, and nothing half-written shows.
 * Mounting needs root; the suite runs as root in CI (npm test installs its packages as root).
 */
const asRoot = process.getuid?.() === 0;
const site = inject('siteUrl');
const TOKEN = 'disk-full-bearer-token';
const ADMIN = 'disk-full-admin-token';
const WS = 'full';

let mount: string;
let server: RunningServer;
const tools = toolClient(() => server.url, { headers: { authorization: `Bearer ${TOKEN}` }, workspace: WS });

beforeAll(async () => {
  if (!asRoot) {
    return;
  }
  mount = await mkdtemp(join(tmpdir(), 'disk-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mount]);
  // No quota: the disk, not the workspace's share of it, is what runs out here.
  server = await startServer({
    FLOW_DATA_DIR: mount,
    MCP_AUTH_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    WORKSPACE_DISK_QUOTA: '0',
  });
});

afterAll(async () => {
  if (!asRoot) {
    return;
  }
  await server?.close();
  execFileSync('umount', [mount]);
  await rm(mount, { recursive: true, force: true });
});

async function send(method: string, path: string, body?: unknown, token = TOKEN) {
  const response = await fetch(server.url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-workspace': WS,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response;
}

/** A flow of `steps` navigations to long addresses: about 8 KiB a step on disk. */
function flowOf(steps: number): Record<string, unknown> {
  return {
    steps: Array.from({ length: steps }, (_, i) => ({
      tool: 'navigate',
      args: { url: `${site}/table.html?${i}=${'a'.repeat(8000)}` },
    })),
  };
}

/** Every name under a directory, dot files included, as paths relative to it. */
async function everything(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe.runIf(asRoot)('a full disk', () => {
  it('answers 507 with a sentence, and corrupts nothing saved before', async () => {
    const before = 'description: saved before the disk filled\nsteps:\n  - tool: outline\n    args: {}\n';
    const saved = await fetch(`${server.url}/flows/before`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-workspace': WS, 'content-type': 'application/yaml' },
      body: before,
    });
    expect(saved.status, await saved.text()).toBe(200);
    await tools.ok('navigate', { url: `${site}/table.html` });
    const shot = await tools.ok('screenshot', { save: true, filename: 'before' });
    const shotBytes = Buffer.from(await (await send('GET', '/files/screenshots/before.png')).arrayBuffer());
    expect(shotBytes.equals(Buffer.from(shot.data as string, 'base64'))).toBe(true);

    // Fill it: big flows, then smaller ones, until not even a one-step flow fits.
    let refusal: Response | undefined;
    let n = 0;
    for (const steps of [30, 4, 1]) {
      for (;;) {
        const answer = await send('PUT', `/flows/fill-${n++}`, flowOf(steps));
        if (answer.status !== 200) {
          refusal = answer;
          break;
        }
      }
    }
    expect(refusal?.status).toBe(507);
    expect(await refusal?.json()).toEqual({ error: { code: 'insufficient_storage', message: DISK_FULL } });

    // A screenshot is refused the same way, over REST and over MCP.
    const rest = await tools.call('screenshot', { save: true, filename: 'after' });
    expect(rest).toEqual({ status: 507, body: { error: { code: 'insufficient_storage', message: DISK_FULL } } });
    const mcp = await connectMcp(server.url, '2026-07-28', {
      workspace: WS,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    try {
      const answer = await mcp.call('screenshot', { save: true, filename: 'after' });
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain(DISK_FULL);
    } finally {
      await mcp.close();
    }

    // What was saved before is whole; nothing half-written is listed or left behind.
    expect(await (await send('GET', '/flows/before')).json()).toMatchObject({ text: before });
    expect(Buffer.from(await (await send('GET', '/files/screenshots/before.png')).arrayBuffer())).toEqual(shotBytes);
    const listing = (await (await send('GET', '/files?folder=screenshots')).json()) as { files: { name: string }[] };
    expect(listing.files.map((f) => f.name)).toEqual(['before.png']);
    const left = await everything(mount);
    expect(left.filter((path) => /\.tmp$|\.incoming-/.test(path))).toEqual([]);
    expect(left.filter((path) => path.includes('after'))).toEqual([]);
    for (const path of left.filter((p) => p.endsWith('.yaml'))) {
      const name =
        path
          .split('/')
          .pop()
          ?.replace(/\.yaml$/, '') ?? '';
      const flow = (await (await send('GET', `/flows/${name}`)).json()) as { document: unknown };
      expect(flow.document, `${name} reads whole`).not.toBeNull();
    }

    // An operator frees space: saves work again.
    const freed = await fetch(`${server.url}/admin/api/workspaces/${WS}/flows/fill-0`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(freed.status).toBe(200);
    expect(await tools.ok('screenshot', { save: true, filename: 'after' })).toMatchObject({ name: 'after.png' });
    await tools.call('end_browser');
  });
});
