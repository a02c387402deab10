import { By, type WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Grid, type OpenedBrowser } from '../../src/grid/grid.js';
import { openBidi } from '../../src/live/monitor/monitoring.js';
import { NetworkCapture, type CaptureListing } from '../../src/live/monitor/capture.js';
import { BidiMonitors } from '../../src/live/monitor/monitor.js';
import { MemoryNetworkLog } from '../../src/live/monitor/network-log.js';
import { hungUpError, testBrowser } from '../helpers/server.js';

const KEY = 'named:capture-test';

describe('network capture on the real Grid', () => {
  const siteUrl = inject('siteUrl');
  const grid = new Grid(inject('gridUrl'), { sandbox: true });
  const monitors = new BidiMonitors({ connect: (endpoint) => openBidi(endpoint, 1_000_000, 10_000), watchMs: 200 });
  const log = new MemoryNetworkLog(200, 3600);
  const ended = new Set<string>();
  const capture = new NetworkCapture({
    monitors,
    log,
    connect: (endpoint) => openBidi(endpoint, 1_000_000, 10_000),
    holds: async (_key, gridId) => !ended.has(gridId),
    bodyBytes: 1_000_000,
  });
  let opened: OpenedBrowser;
  let driver: WebDriver;
  const target = () => ({
    key: KEY,
    gridId: opened.gridId,
    bidiAddress: grid.bidiAddress(opened.capabilities),
    carries: () => false,
  });

  /** Waits on the list itself: entries land after the events that carry them. */
  async function listed(until: (listing: CaptureListing) => boolean): Promise<CaptureListing> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const listing = await capture.list(KEY, opened.gridId);
      if (until(listing) || Date.now() > deadline) {
        return listing;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    opened = await grid.open(testBrowser(), { width: 800, height: 600 });
    driver = grid.attach(opened.gridId, opened.capabilities);
  });

  afterAll(async () => {
    await monitors.close();
    await grid.end(opened.gridId).catch(() => undefined);
  });

  it('lists a fetch and a form post with status and type, and answers the JSON body', async () => {
    await driver.get(`${siteUrl}/network.html`);
    const state = await capture.start(target(), undefined);
    expect(state.collector).toBeTruthy();
    expect(monitors.state(opened.gridId)).toEqual({ open: true, reasons: ['capture'] });

    await driver.findElement(By.id('orders')).click();
    await driver.findElement(By.id('missing')).click();
    await driver.findElement(By.id('broken')).click();
    // The form below navigates: a hang-up still in flight then is aborted by the navigation
    // (Firefox: NS_BINDING_ABORTED), not failed by the server, on a loaded machine.
    await listed((l) => l.requests.some((r) => r.url.includes('/api/hangup') && r.failed !== undefined));
    await driver.findElement(By.id('message')).sendKeys('hello there');
    await driver.findElement(By.id('send')).click();
    const listing = await listed((l) => l.requests.some((r) => r.url.includes('/api/orders?q=')));
    const find = (fragment: string, method = 'GET') =>
      listing.requests.find((r) => r.url.includes(fragment) && r.method === method);

    expect(listing.capturing).toBe(true);
    expect(find('/api/orders?page=2')).toMatchObject({
      status: 200,
      type: 'fetch',
      mime_type: 'application/json',
      body: true,
    });
    expect(find('/api/echo', 'POST')).toMatchObject({ status: 200, type: 'document', body: true });
    expect(find('/api/missing')).toMatchObject({ status: 404, type: 'fetch' });
    expect(find('/api/hangup')).toMatchObject({ status: null, failed: hungUpError(), body: false });
    expect(find('/api/orders?page=2')?.duration_ms).toBeGreaterThanOrEqual(0);

    const orders = await capture.body(KEY, target(), find('/api/orders?page=2')?.id ?? '');
    expect(JSON.parse(orders.text ?? '')).toEqual({
      page: 2,
      orders: [
        { id: 21, item: 'tea', total: 4.5 },
        { id: 22, item: 'cake', total: 3 },
      ],
    });
    // The body's size, whichever field of the response event the browser fills (docs/network.md).
    expect(find('/api/orders?page=2')?.size).toBe(Buffer.byteLength(orders.text ?? ''));
    const echoed = await capture.body(KEY, target(), find('/api/echo', 'POST')?.id ?? '');
    expect(echoed.text).toContain('You sent: hello there');
  });

  it('filters by match, type and status', async () => {
    const only = async (filter: Parameters<NetworkCapture['list']>[2]) =>
      (await capture.list(KEY, opened.gridId, filter)).requests.map((r) => `${r.method} ${new URL(r.url).pathname}`);
    expect(await only({ status: '404' })).toEqual(['GET /api/missing']);
    expect(await only({ status: '4xx' })).toEqual(['GET /api/missing']);
    expect(await only({ status: 'failed' })).toEqual(['GET /api/hangup']);
    expect(await only({ type: 'document' })).toEqual(['POST /api/echo']);
    expect(await only({ match: '*/api/orders?page=*' })).toEqual(['GET /api/orders']);
  });

  it('turning capture off closes the connection; the list stays, bodies go', async () => {
    const listing = await capture.list(KEY, opened.gridId);
    await capture.stop(KEY, opened.gridId);
    expect(monitors.state(opened.gridId)).toEqual({ open: false, reasons: [] });
    const after = await capture.list(KEY, opened.gridId);
    expect(after.capturing).toBe(false);
    expect(after.requests).toEqual(listing.requests);
    const orders = listing.requests.find((r) => r.url.includes('/api/orders?page=2'));
    await expect(capture.body(KEY, target(), orders?.id ?? '')).rejects.toThrow(/no longer available/);
    await expect(capture.body(KEY, target(), 'nope')).rejects.toThrow(/No captured request has the id "nope"/);
  });

  it('keeps the newest N with a dropped count, and keeps only what match names', async () => {
    const small = new NetworkCapture({
      monitors,
      log: new MemoryNetworkLog(3, 3600),
      connect: (endpoint) => openBidi(endpoint, 1_000_000, 10_000),
      holds: async () => true,
      bodyBytes: 1_000_000,
    });
    await small.start(target(), '*/api/*');
    await driver.get(`${siteUrl}/network.html`);
    for (let i = 0; i < 5; i++) {
      await driver.findElement(By.id('orders')).click();
      await driver.findElement(By.id('missing')).click();
    }
    const deadline = Date.now() + 10_000;
    let listing = await small.list(KEY, opened.gridId);
    while (listing.dropped < 7 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      listing = await small.list(KEY, opened.gridId);
    }
    expect(listing.requests).toHaveLength(3);
    expect(listing.dropped).toBe(7);
    expect(listing.requests.every((r) => r.url.includes('/api/'))).toBe(true);
    await small.stop(KEY, opened.gridId);
    expect(monitors.openCount).toBe(0);
  });

  it('refuses a match that is not a glob, and changes nothing', async () => {
    await expect(capture.start(target(), 'has space')).rejects.toThrow(/match must be a URL glob/);
    expect(monitors.state(opened.gridId).open).toBe(false);
  });

  it('a browser ended mid-capture leaves no connection and no Grid session', async () => {
    const doomed = await grid.open(testBrowser(), { width: 800, height: 600 });
    const doomedTarget = { ...target(), key: 'named:doomed', gridId: doomed.gridId };
    doomedTarget.bidiAddress = grid.bidiAddress(doomed.capabilities);
    await capture.start(doomedTarget, undefined);
    expect(monitors.state(doomed.gridId).open).toBe(true);
    // Ended behind the capture's back (another replica, or the Grid): the watch finds it.
    await grid.end(doomed.gridId);
    ended.add(doomed.gridId);
    const deadline = Date.now() + 10_000;
    while (monitors.state(doomed.gridId).open && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(monitors.state(doomed.gridId)).toEqual({ open: false, reasons: [] });
    expect(await grid.isAlive(doomed.gridId)).toBe(false);
  });
});
