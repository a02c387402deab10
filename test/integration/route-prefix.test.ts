import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { connectMcp, rest, startServer, type RunningServer } from '../helpers/server.js';

// Behind a proxy that routes a path to it, the server answers under that path, and every link
// it hands out carries it; probes still find the health checks at the root.
const PREFIX = '/tools/selenium';
let running: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'prefix-test-'));
  running = await startServer({ ROUTE_PREFIX: PREFIX, FLOW_DATA_DIR: dataDir });
});

afterAll(async () => {
  await running?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('ROUTE_PREFIX', () => {
  it('serves every route under the prefix, and the health checks at the root too', async () => {
    for (const path of ['/health', '/ready', `${PREFIX}/health`, `${PREFIX}/info`]) {
      expect((await rest(running.url, path)).status, path).toBe(200);
    }
    const unprefixed = await rest(running.url, '/workspace', undefined, { 'X-Workspace': 'prefixed' });
    expect(unprefixed.status).toBe(404);
    expect(JSON.stringify(unprefixed.body)).toContain(`${PREFIX}/openapi.json`);
    expect(
      (await rest(running.url, `${PREFIX}/workspace`, undefined, { 'X-Workspace': 'prefixed' })).body,
    ).toMatchObject({ workspace: 'prefixed' });
    const document = (await rest(running.url, `${PREFIX}/openapi.json`)).body;
    expect(document.servers).toEqual([expect.objectContaining({ url: PREFIX })]);
  });

  it('speaks MCP under the prefix and hands out links that carry it', async () => {
    const mcp = await connectMcp(`${running.url}${PREFIX}`, '2026-07-28', { workspace: 'prefixed' });
    try {
      await mcp.call('navigate', { url: `${inject('siteUrl')}/table.html` });
      const shot = await mcp.call('screenshot', { save: true });
      const link = String(shot.structured?.url);
      expect(link.startsWith(`${PREFIX}/files/signed/`)).toBe(true);
      const file = await fetch(`${running.url}${link}`);
      expect(file.status).toBe(200);
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(1, 4)
          .toString('latin1'),
      ).toBe('PNG');
    } finally {
      await mcp.call('end_browser');
      await mcp.close();
    }
  });

  it('refuses a prefix that is not a clean path, saying the form', () => {
    for (const bad of ['tools', '/tools/', '/a b', '//x']) {
      expect(() => loadConfig({}, { ROUTE_PREFIX: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({}, { ROUTE_PREFIX: bad }), bad).toThrow(/leading slash, no trailing slash/);
    }
  });
});
