import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMcp, rest, startServer, type RunningServer } from '../helpers/server.js';
import { startStockHubAndNode, startStockStandalone, type StockGrid } from '../helpers/stock-grid.js';
import { toolClient } from '../helpers/tools.js';

// A Grid started the way its own docs start it has managed downloads off: a browser opens on it
// at once, and only what needs downloads says, in one sentence, how to turn them on.
const site = inject('siteUrl');
const ADMIN = 'stock-grid-admin-token';
const SENTENCE =
  /Grid does not offer managed downloads.*--enable-managed-downloads true.*enable-managed-downloads = true under \[node\].*SE_NODE_ENABLE_MANAGED_DOWNLOADS=true/;
const run = promisify(execFile);
/** GRID_SLOT_WAIT here; a browser that opens takes a fraction of it, even on a loaded 2-core host. */
const SLOT_WAIT = 30;
const REPO = fileURLToPath(new URL('../../', import.meta.url));

const shapes: [string, () => Promise<StockGrid>][] = [
  ['a standalone started with no flags', startStockStandalone],
  ['a hub and one node', startStockHubAndNode],
];

describe.each(shapes)('%s', (_shape, start) => {
  let grid: StockGrid;
  let server: RunningServer;
  let dataDir: string;
  const ws = 'stock';
  const tools = toolClient(() => server.url, { workspace: ws });

  beforeAll(async () => {
    grid = await start();
    dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-stock-'));
    // GRID_URL as an operator sets it (Chromium then runs without its sandbox, as a stock Grid run as
    // root needs). A request no slot matches waits out GRID_SLOT_WAIT and answers 503.
    const env = { GRID_URL: grid.url, FLOW_DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, GRID_SLOT_WAIT: String(SLOT_WAIT) };
    server = await startServer(env, grid.url);
  });

  afterAll(async () => {
    await server?.close();
    await grid?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('says in /info what each browser is offered, from the Grid, before and after one runs', async () => {
    const before = await rest(server.url, '/info');
    expect(before.body.browsers).toEqual(['chrome']);
    // No browser has run yet: a stereotype does not say whether BiDi works, so /info does not guess.
    expect(before.body.grid_features).toEqual({ chrome: { managed_downloads: 'none', vnc: 'none', bidi: null } });
  });

  it('opens a browser at once, and keeps it', async () => {
    const started = Date.now();
    const opened = await tools.call('open_session');
    const took = Date.now() - started;
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(took).toBeLessThan((SLOT_WAIT / 2) * 1000);
    expect((await rest(server.url, '/info')).body.grid_features).toEqual({
      chrome: { managed_downloads: 'none', vnc: 'none', bidi: true },
    });
  });

  it('answers a download with the sentence that says how to turn downloads on', async () => {
    // The page's tools work as on any Grid; only what needs downloads says it cannot.
    await tools.ok('navigate', { url: `${site}/download.html` });
    expect(await tools.ok('extract', { selector: { css: 'h1' } })).toMatchObject({ value: 'Download' });
    await tools.ok('interact', { action: 'click', selector: { css: '#download' } });
    const listed = await rest(server.url, '/files?folder=downloads', undefined, { 'x-workspace': ws });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ browser: true, count: 0, files: [] });
    expect(listed.body.downloads_off).toMatch(SENTENCE);
    const root = await rest(server.url, '/files', undefined, { 'x-workspace': ws });
    expect(root.body.folders).toContainEqual(
      expect.objectContaining({ name: 'downloads', downloads_off: expect.stringMatching(SENTENCE) as unknown }),
    );
    const kept = await tools.call('keep_file', { uri: 'workspace://files/downloads/report.csv' });
    expect(kept.status).toBe(409);
    expect(JSON.stringify(kept.body)).toMatch(SENTENCE);
    const read = await fetch(`${server.url}/files/downloads/report.csv`, { headers: { 'x-workspace': ws } });
    expect(read.status).toBe(409);
    // The same over MCP: the workspace_files mirror and the downloads resource.
    const mcp = await connectMcp(server.url, '2026-07-28', { workspace: ws });
    try {
      const files = await mcp.call('workspace_files', { folder: 'downloads' });
      expect(files.isError).toBe(false);
      expect(files.structured?.downloads_off).toMatch(SENTENCE);
      await expect(mcp.readResource('workspace://files/downloads/report.csv')).rejects.toThrow(SENTENCE);
    } finally {
      await mcp.close();
    }
    // And on the admin page's Files tab.
    const admin = await rest(server.url, `/admin/api/workspaces/${ws}/files`, undefined, {
      authorization: `Bearer ${ADMIN}`,
    });
    expect(admin.status).toBe(200);
    expect(admin.body.downloads_off).toMatch(SENTENCE);
  });

  it('has doctor say the Grid is ready, with downloads off, BiDi on and no VNC', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'doctor'], {
      cwd: REPO,
      env: { ...process.env, GRID_URL: grid.url, SE_OFFLINE: 'true', SE_AVOID_STATS: 'true' },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/✓ chrome: a browser opened in \d+\.\d s, and was ended/);
    expect(stdout).toMatch(/! chrome managed downloads: off \(0 of 2 slots\): .*--enable-managed-downloads true/);
    expect(stdout).toMatch(/✓ chrome BiDi: on \(spoken by this server over the Grid's DevTools proxy, se:cdp\)/);
    expect(stdout).toMatch(/! chrome VNC: off \(0 of 2 slots\)/);
    expect(stdout).toMatch(/^Ready\.$/m);
  });
});
