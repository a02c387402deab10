import type { WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedGrid, type EmbeddedGrid } from '../../src/embedded-grid/index.js';
import { LOOKUPS_PER_BROWSER } from '../../src/embedded-grid/proxy-names.js';
import { Grid, type OpenedBrowser } from '../../src/grid/grid.js';
import { startDns, type TestDns } from '../helpers/dns-server.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';

// A hostile page in browser A asks, without end, for names whose DNS server never answers;
// browser B, on the same Grid and proxy, navigates by name meanwhile. The Grid's proxy asks a DNS
// server this test runs (a real one, on a loopback UDP port): names under answer.test answer
// with this host (the fixture site's port is open), names under hang.test are never answered.
const siteUrl = inject('siteUrl');
const sitePort = new URL(siteUrl).port;
let dns: TestDns;
let embedded: EmbeddedGrid;
let grid: Grid;
const opened: OpenedBrowser[] = [];

/** Keeps `width` fetches and as many websockets in flight, each to a new name that never answers. */
const FLOOD = `
  const [port, width] = arguments;
  window.flooding = true;
  let n = 0;
  const fetchOne = async () => {
    while (window.flooding) {
      try { await fetch('http://f' + (n++) + '.hang.test:' + port + '/', { mode: 'no-cors', signal: AbortSignal.timeout(20000) }); } catch {}
    }
  };
  const socketOne = () => {
    if (!window.flooding) { return; }
    const socket = new WebSocket('ws://w' + (n++) + '.hang.test:' + port + '/');
    let again = true;
    const next = () => { if (again) { again = false; setTimeout(socketOne, 10); } };
    socket.onerror = next;
    socket.onclose = next;
  };
  for (let i = 0; i < width; i += 1) { fetchOne(); socketOne(); }`;

beforeAll(async () => {
  dns = await startDns((name) => {
    if (name.endsWith('.hang.test')) {
      return 'hang';
    }
    return name.endsWith('.answer.test') ? ['127.0.0.1'] : 'nxdomain';
  });
  embedded = await startEmbeddedGrid({
    maxSessions: 2,
    firefox: false,
    loopbackPorts: [FIXTURE_PORTS],
    names: { servers: [dns.server] },
  });
  grid = new Grid(embedded.url);
}, 180_000);

afterAll(async () => {
  await Promise.all(opened.map((b) => grid.end(b.gridId).catch(() => undefined)));
  await embedded?.stop();
  await dns?.close();
});

async function browser(): Promise<WebDriver> {
  const b = await grid.open('chrome', { width: 800, height: 600 });
  opened.push(b);
  return grid.attach(b.gridId, b.capabilities);
}

/** How long each navigation by a new name takes, in ms; each must land on the fixture page. */
async function navigations(driver: WebDriver, prefix: string, count: number, beside: number[] = []): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = Date.now();
    beside.push(hanging(started));
    await driver.get(`http://${prefix}${i}.answer.test:${sitePort}/table.html`);
    took.push(Date.now() - started);
    expect(await driver.getTitle()).not.toMatch(/^selenium-flow proxy:/);
  }
  return took;
}

/** libuv's threads, which every getaddrinfo and file access of the server share. */
const THREADS = 4;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/**
 * The lookups of names that never answer in flight at `now`: those first asked in the 3 s before
 * (the proxy gives up on one after 3 to 5 s).
 */
function hanging(now = Date.now()): number {
  const asked = dns.queries.filter((q) => q.name.endsWith('.hang.test') && q.at > now - 3_000 && q.at <= now);
  return new Set(asked.map((q) => q.name)).size;
}

describe("the fence's proxy resolves names fairly", () => {
  it('keeps another browser navigating by name at normal speed while a page floods it with names that never answer', async () => {
    const b = await browser();
    // A navigation starved of its lookup fails here, not at the test's own timeout.
    await b.manage().setTimeouts({ pageLoad: 10_000 });
    const before = await navigations(b, 'before', 5);
    const a = await browser();
    await a.get(`${siteUrl}/table.html`);
    await a.executeScript(FLOOD, sitePort, 2 * LOOKUPS_PER_BROWSER);
    // The flood is on: as many names hang as getaddrinfo had threads (it held them all).
    const flooded = Date.now();
    await expect
      .poll(() => new Set(dns.queries.filter((q) => q.at >= flooded && q.name.endsWith('.hang.test'))).size, {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(THREADS);
    const inFlight: number[] = [];
    const during = await navigations(b, 'during', 10, inFlight);
    await a.executeScript('window.flooding = false');
    console.log(
      `navigations by name, ms: before ${before.join(' ')}; during the flood ${during.join(' ')} (lookups hanging at each: ${inFlight.join(' ')})`,
    );
    // B waited on none of A's lookups, which hung all along (twice as many as there were threads).
    expect(Math.max(...during)).toBeLessThan(3_000);
    expect(median(during)).toBeLessThan(3 * median(before) + 300);
    expect(Math.min(...inFlight)).toBeGreaterThanOrEqual(2 * THREADS);
  });
});
