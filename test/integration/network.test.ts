import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PIXEL_PNG } from '../fixtures/site.js';
import {
  connectMcp,
  gridHas,
  gridIdOf,
  hungUpError,
  rest,
  startServer,
  testBrowser,
  type RunningServer,
} from '../helpers/server.js';

const site = inject('siteUrl');
const WORKSPACE = 'net';

interface Entry {
  id: string;
  method: string;
  url: string;
  status: number | null;
  type: string;
  body: boolean;
  failed?: string;
  duration_ms: number | null;
  size: number | null;
}
interface Listing {
  capturing: boolean;
  match: string | null;
  count: number;
  requests: Entry[];
  dropped: number;
}

let dataDir: string;
let server: RunningServer;

const call = (tool: string, body: Record<string, unknown>, workspace = WORKSPACE) =>
  rest(server.url, `/browser/${tool}`, body, { 'x-workspace': workspace });
const list = async (query = '', workspace = WORKSPACE) => {
  const answer = await rest(server.url, `/workspace/network${query}`, undefined, { 'x-workspace': workspace });
  return answer.body as unknown as Listing & { error?: { message: string } };
};
const click = (id: string) => call('interact', { action: 'click', selector: { css: `#${id}` } });

/** Waits on the list: a request is written once the browser says it finished. */
async function listedWith(fragment: string, workspace = WORKSPACE): Promise<Listing> {
  const until = Date.now() + 15_000;
  for (;;) {
    const listing = await list('', workspace);
    if (listing.requests.some((r) => r.url.includes(fragment)) || Date.now() > until) {
      return listing;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-network-'));
  server = await startServer({ FLOW_DATA_DIR: dataDir });
});

afterAll(async () => {
  for (const workspace of [WORKSPACE, 'net-flow', 'net-ended', 'net-first', 'net-dialog']) {
    await call('end-browser', {}, workspace).catch(() => undefined);
  }
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('network capture over HTTP and MCP', () => {
  it('lists a fetch and a form post with status and type; network_body answers the JSON', async () => {
    expect((await call('navigate', { url: `${site}/network.html` })).status).toBe(200);
    const on = await call('capture-network', { on: true });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ capturing: true, match: null });
    const gridId = (await gridIdOf(server, WORKSPACE)) ?? '';
    expect(server.server.deps.monitoring?.monitors.state(gridId)).toEqual({ open: true, reasons: ['capture'] });
    expect((await server.server.store.get(`named:${WORKSPACE}`))?.browser).toBe(testBrowser());

    await click('orders');
    await click('missing');
    await click('broken');
    await click('pixel');
    await call('write', { selector: { css: '#message' }, text: 'hello orders' });
    await click('send');
    const listing = await listedWith('/api/orders?q=');
    const find = (fragment: string, method = 'GET') =>
      listing.requests.find((r) => r.url.includes(fragment) && r.method === method);
    expect(listing.capturing).toBe(true);
    expect(listing.count).toBe(listing.requests.length);
    expect(find('/api/orders?page=2')).toMatchObject({ status: 200, type: 'fetch', body: true });
    expect(find('/api/echo', 'POST')).toMatchObject({ status: 200, type: 'document', body: true });
    expect(find('/api/missing')).toMatchObject({ status: 404, type: 'fetch' });
    expect(find('/api/hangup')).toMatchObject({ status: null, failed: hungUpError(), body: false });

    const orders = await call('network-body', { request: find('/api/orders?page=2')?.id });
    expect(orders.status).toBe(200);
    expect(orders.body).toMatchObject({ status: 200, mime_type: 'application/json', json: true });
    expect(orders.body.text).toBe(
      JSON.stringify(
        {
          page: 2,
          orders: [
            { id: 21, item: 'tea', total: 4.5 },
            { id: 22, item: 'cake', total: 3 },
          ],
        },
        null,
        2,
      ),
    );
    const short = await call('network-body', { request: find('/api/echo', 'POST')?.id, max_chars: 100 });
    expect(short.body.truncated).toBe(true);
    expect(String(short.body.text)).toMatch(/…\[truncated: raise max_chars or narrow the selector\]$/);

    const pixel = await call('network-body', { request: find('/api/pixel.png')?.id });
    expect(pixel.body).toMatchObject({ mime_type: 'image/png', size: Buffer.from(PIXEL_PNG, 'base64').length });
    const file = pixel.body.file as { uri: string; url: string };
    expect(file.uri).toMatch(/^workspace:\/\/files\/response-[\w.-]+\.png$/);
    const saved = await fetch(new URL(file.url, server.url));
    expect(Buffer.from(await saved.arrayBuffer()).toString('base64')).toBe(PIXEL_PNG);
  });

  it('filters the list by match, type and status, on the resource and its mirror alike', async () => {
    const paths = (l: Listing) => l.requests.map((r) => new URL(r.url).pathname);
    expect(paths(await list('?status=404'))).toEqual(['/api/missing']);
    expect(paths(await list('?status=failed'))).toEqual(['/api/hangup']);
    expect(paths(await list('?type=document'))).toEqual(['/api/echo']);
    expect(paths(await list(`?match=${encodeURIComponent('*/api/orders?page=*')}`))).toEqual(['/api/orders']);

    const mcp = await connectMcp(server.url, '2026-07-28', { workspace: WORKSPACE });
    try {
      const resource = JSON.parse(await mcp.readResource('workspace://network')) as Listing;
      expect(resource.requests.map((r) => r.id)).toEqual((await list()).requests.map((r) => r.id));
      const mirrored = await mcp.call('workspace_network', { status: '4xx' });
      expect((mirrored.structured as unknown as Listing).requests.map((r) => r.status)).toEqual([404]);
    } finally {
      await mcp.close();
    }
  });

  it('answers bad input with a 4xx saying what to do, and changes nothing', async () => {
    const before = await list();
    const unknown = await call('network-body', { request: 'no-such-id' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      message: expect.stringContaining('list workspace://network') as string,
    });
    const glob = await call('capture-network', { on: true, match: 'has a space' });
    expect(glob.status).toBe(400);
    expect(JSON.stringify(glob.body)).toContain('match must be a URL glob');
    const status = await list('?status=40');
    expect(status.error?.message).toContain('a status such as 404');
    const failed = before.requests.find((r) => r.status === null);
    const noBody = await call('network-body', { request: failed?.id });
    expect(noBody.status).toBe(404);
    expect(JSON.stringify(noBody.body)).toContain('failed before any response');
    expect(await list()).toEqual(before);
  });

  it('turning capture off closes the BiDi connection; the list stays, the bodies go', async () => {
    const gridId = (await gridIdOf(server, WORKSPACE)) ?? '';
    const before = await list();
    const off = await call('capture-network', { on: false });
    expect(off.body).toMatchObject({ capturing: false });
    expect(server.server.deps.monitoring?.monitors.state(gridId)).toEqual({ open: false, reasons: [] });
    const after = await list();
    expect(after).toEqual({ ...before, capturing: false, match: null });
    const orders = before.requests.find((r) => r.url.includes('/api/orders?page=2'));
    const gone = await call('network-body', { request: orders?.id });
    expect(gone.status).toBe(404);
    expect(JSON.stringify(gone.body)).toContain('no longer available');
  });

  it('captures as a flow step what the flow triggers', async () => {
    const document = [
      'description: Load the orders page, capturing its API calls',
      'steps:',
      '  - tool: navigate',
      `    args: { url: "${site}/network.html" }`,
      '  - tool: capture_network',
      '    args: { on: true, match: "*/api/*" }',
      '  - tool: interact',
      '    args: { action: click, selector: { css: "#orders" } }',
    ].join('\n');
    const saved = await fetch(`${server.url}/flows/orders`, {
      method: 'PUT',
      headers: { 'x-workspace': 'net-flow', 'content-type': 'application/yaml' },
      body: document,
    });
    expect(saved.status).toBeLessThan(300);
    const ran = await rest(server.url, '/flows/orders/run', {}, { 'x-workspace': 'net-flow' });
    expect(ran.status).toBe(200);
    expect(ran.body, JSON.stringify(ran.body)).toMatchObject({ status: 'ok' });
    const listing = await listedWith('/api/orders', 'net-flow');
    expect(listing.match).toBe('*/api/*');
    expect(listing.requests.map((r) => new URL(r.url).pathname)).toEqual(['/api/orders']);
    // A Grid slot back for the tests below, which each open a browser of their own.
    expect((await call('end-browser', {}, 'net-flow')).status).toBe(200);
  });

  it('turned on in a new browser before its first navigate, lists that first page’s own request', async () => {
    // Its browser holds a Grid slot the next test needs: ended however this one goes.
    try {
      expect((await call('open-session', {}, 'net-first')).status).toBe(200);
      expect((await call('capture-network', { on: true }, 'net-first')).status).toBe(200);
      expect((await call('navigate', { url: `${site}/network.html` }, 'net-first')).status).toBe(200);
      const listing = await listedWith('/network.html', 'net-first');
      expect(listing.requests.find((r) => r.url === `${site}/network.html`)).toMatchObject({
        method: 'GET',
        status: 200,
        type: 'document',
      });
    } finally {
      await call('end-browser', {}, 'net-first');
    }
  });

  it('refuses capture on a browser that is gone; a browser ended mid-capture leaves nothing behind', async () => {
    // Asserted so a Grid out of slots fails here, as a 503, not as a capture that is not open.
    expect((await call('navigate', { url: `${site}/network.html` }, 'net-ended')).status).toBe(200);
    expect((await call('capture-network', { on: true }, 'net-ended')).status).toBe(200);
    const gridId = (await gridIdOf(server, 'net-ended')) ?? '';
    const monitors = server.server.deps.monitoring?.monitors;
    expect(monitors?.state(gridId).open).toBe(true);
    expect((await call('end-browser', {}, 'net-ended')).status).toBe(200);
    const until = Date.now() + 10_000;
    while (monitors?.state(gridId).open && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(monitors?.state(gridId)).toEqual({ open: false, reasons: [] });
    // The Grid's /status lists a session for a moment after it ended.
    while ((await gridHas(gridId)) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await gridHas(gridId)).toBe(false);
    expect((await list('', 'net-ended')).capturing).toBe(false);

    const again = await call('capture-network', { on: true }, 'net-ended');
    expect(again.status).toBe(404);
    expect(JSON.stringify(again.body)).toContain('call open_session');
  });

  it("leaves a page's dialogs to the agent while it captures", async () => {
    expect((await call('navigate', { url: `${site}/dialogs.html` }, 'net-dialog')).status).toBe(200);
    expect((await call('capture-network', { on: true }, 'net-dialog')).status).toBe(200);
    // Chromium's mapper answers any dialog itself unless told not to: the confirm would be gone,
    // dismissed, before the click's answer could name it.
    const clicked = await call('interact', { action: 'click', selector: { css: '#confirm' } }, 'net-dialog');
    expect(clicked.body.dialog).toEqual({ message: 'Sure?' });
    expect((await call('dialog', { action: 'accept' }, 'net-dialog')).status).toBe(200);
    const result = await call('extract', { selector: { css: '#result' } }, 'net-dialog');
    expect(result.body.value).toBe('true');
  });
});
