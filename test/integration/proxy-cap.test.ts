import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startEmbeddedGrid } from '../../src/embedded-grid/index.js';
import { CONNECTIONS_PER_BROWSER } from '../../src/embedded-grid/proxy.js';
import { Grid, type OpenedBrowser } from '../../src/grid/grid.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';

// A hostile page in browser A opens websockets through the fence's proxy until it is refused;
// browser B, on the same Grid and the same proxy, must still load its page and open its own.
const grid = new Grid(inject('gridUrl'));
let site: Server;
let siteUrl: string;
let live = 0;
const opened: OpenedBrowser[] = [];

const PAGE = `<!doctype html><title>attack</title><script>
window.flood = (count) => new Promise((resolve) => {
  const result = { opened: 0, failed: 0, sockets: [] };
  let settled = 0;
  const done = () => { settled += 1; if (settled === count) resolve({ opened: result.opened, failed: result.failed }); };
  for (let i = 0; i < count; i += 1) {
    const ws = new WebSocket('ws://' + location.host + '/ws');
    result.sockets.push(ws);
    ws.onopen = () => { result.opened += 1; done(); };
    ws.onerror = () => { result.failed += 1; };
    setTimeout(() => { if (ws.readyState !== 1) { done(); } }, 20000);
  }
  window.held = result.sockets;
});
</script>`;

beforeAll(async () => {
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  new WebSocketServer({ server: site, path: '/ws' }).on('connection', (ws) => {
    live += 1;
    ws.on('close', () => (live -= 1));
  });
  for (let port = FIXTURE_PORTS.to; port >= FIXTURE_PORTS.from; port -= 1) {
    const ok = await new Promise<boolean>((resolve) => {
      site.once('error', () => resolve(false));
      site.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) {
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      break;
    }
  }
});

afterAll(async () => {
  await Promise.all(opened.map((b) => grid.end(b.gridId).catch(() => undefined)));
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

async function browser(): Promise<WebDriver> {
  const b = await grid.open('chrome', { width: 800, height: 600 });
  opened.push(b);
  const driver = grid.attach(b.gridId, b.capabilities);
  await driver.get(`${siteUrl}/`);
  return driver;
}

describe("the fence's proxy caps each browser's connections", () => {
  it('refuses a page that floods it past its browser’s cap, while another browser loads and connects', async () => {
    const a = await browser();
    const flood = await a.executeAsyncScript<{ opened: number; failed: number }>(
      'window.flood(arguments[0]).then(arguments[arguments.length - 1]);',
      CONNECTIONS_PER_BROWSER + 72,
    );
    // Refused at its own cap (the page's own connection counts too), not at Chromium's limits.
    expect(flood.failed).toBeGreaterThan(0);
    expect(flood.opened).toBeLessThanOrEqual(CONNECTIONS_PER_BROWSER);
    expect(flood.opened).toBeGreaterThanOrEqual(CONNECTIONS_PER_BROWSER - 8);
    expect(live).toBe(flood.opened);
    // A still holds every one of them while B works.
    const b = await browser();
    expect(await b.getTitle()).toBe('attack');
    const own = await b.executeAsyncScript<{ opened: number; failed: number }>(
      'window.flood(arguments[0]).then(arguments[arguments.length - 1]);',
      20,
    );
    expect(own).toEqual({ opened: 20, failed: 0 });
    expect(live).toBe(flood.opened + 20);
  });
});

describe('without its proxy', () => {
  it('the embedded Grid refuses to start, naming the risk and BROWSER_FENCE=off', async () => {
    // A temporary directory the proxy cannot create its registrations in: a real failure, on demand.
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent/selenium-flow-test';
    try {
      await expect(startEmbeddedGrid({ maxSessions: 1, firefox: false })).rejects.toThrow(
        /^Cannot fence the embedded Grid's browsers: their proxy did not start \(.*\)\. Without it a page can run programs as you .*BROWSER_FENCE=off/,
      );
    } finally {
      if (tmp === undefined) {
        delete process.env.TMPDIR;
      } else {
        process.env.TMPDIR = tmp;
      }
    }
  });
});
