import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startHubAndNodes, type EmbeddedGrid } from '../../src/embedded-grid/index.js';
import { gridFetch, withoutCredentials } from '../../src/grid/grid.js';
import { sessionCapabilities } from '../../src/grid/session-lookup.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { gridIdOf, rest, startServer, type RunningServer } from '../helpers/server.js';

// The distributed Grid: a hub and one node, each its own JVM, on a loopback event bus.
// The server only knows the hub's URL, as in production.
let grid: EmbeddedGrid;
let running: RunningServer;

beforeAll(async () => {
  grid = await startHubAndNodes({ nodes: 1, maxSessions: 1, loopbackPorts: [FIXTURE_PORTS] });
  running = await startServer({}, grid.url);
});

afterAll(async () => {
  await running?.close();
  await grid?.stop();
});

describe('a hub and a node', () => {
  it('registers its node with the hub on loopback addresses only', async () => {
    const status = (await (await gridFetch(`${grid.url}/status`, { method: 'GET' })).json()) as {
      value: { ready: boolean; nodes: { uri: string }[] };
    };
    expect(status.value.ready).toBe(true);
    // The hub asks for the credentials the server was given.
    expect((await fetch(`${withoutCredentials(grid.url)}/status`)).status).toBe(401);
    expect(status.value.nodes).toHaveLength(1);
    expect(status.value.nodes[0]?.uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await rest(running.url, '/ready')).body).toMatchObject({ status: 'ok', grid: true, store: true });
  });

  it('runs the smoke path through the hub: open, navigate, read 50 rows, end', async () => {
    const ws = { 'X-Workspace': 'through-hub' };
    const opened = await rest(running.url, '/browser/open-session', {}, ws);
    expect(opened.status).toBe(200);
    // The node's one slot is taken, so the Grid is not `ready` for another session; this
    // replica still serves that browser, so it stays ready for its load balancer.
    const full = (await (await gridFetch(`${grid.url}/status`, { method: 'GET' })).json()) as {
      value: { ready: boolean };
    };
    expect(full.value.ready).toBe(false);
    expect(await rest(running.url, '/ready')).toMatchObject({ status: 200, body: { grid: true } });
    const went = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html` }, ws);
    expect(went.body).toMatchObject({ title: 'Data table' });
    const rows = await rest(running.url, '/browser/extract', { selector: { css: '#data tbody tr' }, all: true }, ws);
    const values = rows.body.values as string[];
    expect(values).toHaveLength(50);
    expect(values[49]).toMatch(/^50\s+Item 50\s+150 EUR$/);
    const current = await rest(running.url, '/workspace', undefined, ws);
    expect(current.body).toMatchObject({ browser: { alive: true } });
    // The addresses the browser hands out (CDP, BiDi) point at the hub, not at the node behind it.
    const capabilities = await sessionCapabilities(grid.url, (await gridIdOf(running, 'through-hub')) ?? '');
    expect(String(capabilities?.['se:cdp'])).toMatch(
      new RegExp(`^ws://127\\.0\\.0\\.1:${new URL(grid.url).port}/session/`),
    );
    expect(await rest(running.url, '/browser/end-browser', {}, ws)).toEqual({ status: 200, body: { ended: true } });
  });
});
