import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedGrid, type EmbeddedGrid } from '../../src/embedded-grid/index.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

const TOKEN = 'metrics-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

async function scrape(base: string): Promise<string> {
  const response = await fetch(`${base}/metrics`, { headers: auth });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one sample line of the Prometheus text, e.g. `x_total{tool="navigate",outcome="ok"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('one log line per request and per tool call, and /metrics', () => {
  let replica: Replica;
  const workspace = { 'x-workspace': 'metered', ...auth };

  beforeAll(async () => {
    replica = await spawnReplica({ GRID_URL: inject('gridUrl'), LOG_LEVEL: 'info', MCP_AUTH_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await rest(replica.url, '/browser/end-browser', {}, workspace).catch(() => undefined);
    await replica.kill('SIGTERM');
  });

  it('logs each request by its route pattern and each call by tool, workspace, outcome and ms', async () => {
    const site = inject('siteUrl');
    const requests: Array<[string, unknown]> = [
      ['/browser/navigate', { url: `${site}/login.html?token=in-the-query` }],
      ['/browser/extract', { selector: { css: 'h1' } }],
      ['/browser/navigate', {}],
      ['/browser/end-browser', {}],
    ];
    for (const [path, body] of requests) {
      await rest(replica.url, path, body, workspace);
    }
    await rest(replica.url, '/files/not-there.txt?sig=abc', undefined, workspace);
    await fetch(`${replica.url}/health`);
    // The last line is written after its answer is sent: wait for it rather than for a time.
    await expect.poll(() => logLines(replica).filter((l) => l.event === 'request').length).toBe(5);
    const lines = logLines(replica);
    expect(lines.filter((l) => l.event === 'request').map((l) => [l.method, l.route, l.status])).toEqual([
      ['POST', '/browser/navigate', 200],
      ['POST', '/browser/extract', 200],
      ['POST', '/browser/navigate', 400],
      ['POST', '/browser/end-browser', 200],
      ['GET', '/files/:name', 400],
    ]);
    const calls = lines.filter((l) => l.event === 'tool_call');
    expect(calls.map((l) => [l.tool, l.workspace, l.outcome])).toEqual([
      ['navigate', 'metered', 'ok'],
      ['extract', 'metered', 'ok'],
      ['navigate', 'metered', 'bad_request'],
      ['end_browser', 'metered', 'ok'],
    ]);
    expect(calls.every((l) => typeof l.ms === 'number' && l.ms >= 0)).toBe(true);
    // Each call's line carries its request's id: one search finds the request and what it did.
    const requestIds = lines.filter((l) => l.event === 'request').map((l) => l.reqId);
    expect(new Set(requestIds).size).toBe(5);
    expect(calls.map((l) => l.reqId)).toEqual(requestIds.slice(0, 4));
    // Never the URL, its query, or the page's title.
    expect(replica.output()).not.toContain('in-the-query');
    expect(replica.output()).not.toContain('sig=abc');
    expect(replica.output()).not.toContain(site);
  });

  it('serves Prometheus metrics behind the bearer token', async () => {
    expect((await fetch(`${replica.url}/metrics`)).status).toBe(401);
    const text = await scrape(replica.url);
    expect(sample(text, 'selenium_flow_tool_calls_total{tool="navigate",outcome="ok"}')).toBe(1);
    expect(sample(text, 'selenium_flow_tool_calls_total{tool="navigate",outcome="bad_request"}')).toBe(1);
    expect(sample(text, 'selenium_flow_tool_call_duration_seconds_count{tool="navigate"}')).toBe(2);
    expect(sample(text, 'selenium_flow_browsers_open')).toBe(0);
    expect(sample(text, 'selenium_flow_turns_waiting')).toBe(0);
    expect(sample(text, 'selenium_flow_grid_slots{state="free"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'selenium_flow_grid_slots{state="used"}')).toBeGreaterThanOrEqual(0);
    for (const family of ['selenium_flow_flow_runs_total', 'selenium_flow_secret_binds_total']) {
      expect(text).toContain(`# TYPE ${family} counter`);
    }
    // The process and runtime series stock Node dashboards read, under their usual names.
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('counts a flow run by its outcome', async () => {
    const saved = await fetch(`${replica.url}/flows/metered-flow`, {
      method: 'PUT',
      headers: { ...workspace, 'content-type': 'application/yaml' },
      body: `steps:\n  - tool: navigate\n    args: {url: "${inject('siteUrl')}/login.html"}\n`,
    });
    expect(saved.status).toBe(200);
    expect((await rest(replica.url, '/flows/metered-flow/run', {}, workspace)).body).toMatchObject({ status: 'ok' });
    const text = await scrape(replica.url);
    expect(sample(text, 'selenium_flow_flow_runs_total{outcome="ok"}')).toBe(1);
    expect(sample(text, 'selenium_flow_browsers_open')).toBe(1);
  });

  it("logs a proxy's plain X-Request-Id on the request's lines and returns it; one it replaced is never logged", async () => {
    const kept = await fetch(`${replica.url}/workspace`, {
      headers: { ...workspace, 'x-request-id': 'proxy-trace.42' },
    });
    expect(kept.headers.get('x-request-id')).toBe('proxy-trace.42');
    const refused = await fetch(`${replica.url}/workspace`, { headers: { 'x-request-id': 'token=leaked-by-a-proxy' } });
    expect(refused.status).toBe(401);
    const replaced = refused.headers.get('x-request-id');
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    await expect
      .poll(() => logLines(replica).filter((l) => l.event === 'request' && l.reqId === replaced).length)
      .toBe(1);
    const lines = logLines(replica).filter((l) => l.reqId === 'proxy-trace.42');
    expect(lines.map((l) => l.event)).toEqual(['tool_call', 'request']);
    expect(replica.output()).not.toContain('leaked-by-a-proxy');
  });
});

function logLines(replica: Replica): Record<string, unknown>[] {
  return replica
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('/ready on a shared Grid that is merely full', () => {
  let grid: EmbeddedGrid;
  let server: RunningServer;

  beforeAll(async () => {
    grid = await startEmbeddedGrid({ maxSessions: 1, loopbackPorts: [FIXTURE_PORTS] });
    server = await startServer({ MCP_AUTH_TOKEN: TOKEN }, grid.url);
  });
  afterAll(async () => {
    await rest(server.url, '/browser/end-browser', {}, { 'x-workspace': 'holder', ...auth }).catch(() => undefined);
    await server?.close();
    await grid?.stop();
  });

  it('stays 200 while every slot is taken, and /metrics says the Grid is full', async () => {
    const opened = await rest(server.url, '/browser/open-session', {}, { 'x-workspace': 'holder', ...auth });
    expect(opened, JSON.stringify(opened.body)).toMatchObject({ status: 200 });
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', grid: true });
    const text = await scrape(server.url);
    expect(sample(text, 'selenium_flow_grid_slots{state="free"}')).toBe(0);
    expect(sample(text, 'selenium_flow_grid_slots{state="used"}')).toBe(1);
  });
});
