import { execFileSync } from 'node:child_process';
import type { BrowserKind } from '../../src/grid/capabilities.js';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { firefoxSupport } from '../../src/embedded-grid/config.js';
import { DOCKER_SELENIUM_VNC_PASSWORD } from '../../src/embedded-grid/docker-node.js';
import { startHubAndNodes } from '../../src/embedded-grid/index.js';
import { attackFromPage, countingListener, newSession, udpListener, type Outcome } from '../helpers/attack-page.js';
import { listeningPorts, processesBelow } from '../helpers/listening.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { rest } from '../helpers/server.js';
import { startStockStandalone, type StockGrid } from '../helpers/stock-grid.js';

// A Grid this server did not start (GRID_URL), its browsers not fenced by anything of their own:
// a stock standalone from the jar, and a hub with docker-selenium-style nodes (a display and VNC
// each; their own firewall opens every port). The server sends each browser through its fence.
// A page served from the allowed loopback port then tries every port the Grid's processes (and
// the server's) listen on: a new session whose binary is python3 writing a marker (what
// chromedriver does for any loopback page), and a plain fetch by `localhost`. No marker, no
// connection; the allowed site loads. Without the fence (BROWSER_FENCE=off) the same chain runs
// the program: the test can fail.

const siteUrl = inject('siteUrl');
const sitePort = Number(new URL(siteUrl).port);
let markers: string;

/** The ports the drivers (chromedriver, geckodriver) of the processes below this test listen on. */
function driverPorts(): number[] {
  const below = new Set(processesBelow(process.pid));
  const lines = execFileSync('ps', ['-eo', 'pid=,args=']).toString().split('\n');
  return lines.flatMap((line) => {
    const match = /^\s*(\d+)\s+\S*(?:chromedriver|geckodriver) --port[= ](\d+)/.exec(line);
    return match && below.has(Number(match[1])) ? [Number(match[2])] : [];
  });
}

beforeAll(async () => {
  markers = await mkdtemp(join(tmpdir(), 'sf-fence-grid-'));
  // The hub's nodes run as the Grid's account: their chromedriver could write here, if a page reached it.
  await chmod(markers, 0o1777);
});

afterAll(async () => {
  await rm(markers, { recursive: true, force: true });
});

const firefox = (await firefoxSupport()).geckodriver !== undefined;
const shapes: [string, () => Promise<StockGrid>, BrowserKind[]][] = [
  ['a stock standalone', startStockStandalone, ['chrome']],
  [
    'a hub and docker-selenium-style nodes with VNC',
    () =>
      startHubAndNodes({
        dockerSelenium: {
          browsers: firefox ? ['chrome', 'firefox'] : ['chrome'],
          vncPassword: DOCKER_SELENIUM_VNC_PASSWORD,
        },
        // Nothing of the Grid's own fences its browsers: no proxy, and a firewall that opens every port.
        fence: 'off',
        loopbackPorts: [{ from: 1, to: 65_535 }],
      }),
    firefox ? ['chrome', 'firefox'] : ['chrome'],
  ],
];

describe.each(shapes)('a Grid at GRID_URL: %s', (_shape, start, browsers) => {
  let grid: StockGrid;
  let server: Replica;
  let dataDir: string;

  beforeAll(async () => {
    grid = await start();
    dataDir = await mkdtemp(join(tmpdir(), 'sf-fence-grid-data-'));
    server = await spawnReplica({
      GRID_URL: grid.url,
      BROWSER_LOOPBACK_PORTS: String(sitePort),
      FLOW_DATA_DIR: dataDir,
      GRID_VNC_PASSWORD: DOCKER_SELENIUM_VNC_PASSWORD,
    });
  }, 180_000);

  afterAll(async () => {
    await server?.kill('SIGTERM');
    await grid?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('says the fence in the banner, the log and /ready', async () => {
    const fence = new RegExp(
      `proxy at 127\\.0\\.0\\.1:\\d+ for the Grid's browsers \\(this host's ports closed but ${sitePort}; private networks closed but none; the Grid's own closed\\)`,
    );
    expect(server.output()).toMatch(new RegExp(`Fence:    ${fence.source}`));
    expect(server.output()).toMatch(new RegExp(`Grid's browsers fenced: ${fence.source}`));
    expect(String((await rest(server.url, '/ready')).body.fence)).toMatch(fence);
  });

  it.each(browsers)(
    '%s: a page reaches no port of its node, hub or server, runs no program through chromedriver, sends no UDP',
    { timeout: 120_000 },
    async (browser) => {
      const workspace = `fence-grid-${browser}`;
      const ws = { 'X-Workspace': workspace };
      const opened = await rest(server.url, '/browser/open-session', { browser }, ws);
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      const ports = listeningPorts(processesBelow(process.pid));
      const drivers = driverPorts();
      expect(drivers.length).toBeGreaterThan(0);
      expect(ports).toEqual(expect.arrayContaining([Number(new URL(grid.url).port), ...drivers]));
      const marker = join(markers, `${browser}-${randomBytes(6).toString('hex')}`);
      const tcp = await countingListener();
      const udp = await udpListener();
      const targets = [
        { name: 'the fixture site (allowed)', kind: 'fetch', url: `${siteUrl}/table.html` },
        ...ports.flatMap((port) => [
          {
            name: `port ${port}, a new session`,
            kind: 'fetch',
            url: `http://127.0.0.1:${port}/session`,
            method: 'POST',
            body: newSession(browser, marker),
          },
          { name: `port ${port} by localhost`, kind: 'fetch', url: `http://localhost:${port}/status` },
        ]),
        { name: 'an unallowed listener', kind: 'fetch', url: `http://127.0.0.1:${tcp.port}/` },
        { name: 'the same by [::1]', kind: 'fetch', url: `http://[::1]:${tcp.port}/` },
        { name: 'the metadata service', kind: 'fetch', url: 'http://169.254.169.254/latest/meta-data/' },
        { name: 'a private network', kind: 'fetch', url: 'http://10.255.255.1/' },
      ];
      let outcomes: Outcome[];
      try {
        outcomes = await attackFromPage(server.url, siteUrl, workspace, targets, udp.port);
      } finally {
        await tcp.close();
        udp.close();
      }
      const [allowed, ...forbidden] = outcomes;
      expect(allowed).toMatchObject({ name: 'the fixture site (allowed)', reached: true });
      expect(forbidden.filter((o) => o.reached)).toEqual([]);
      expect(forbidden).toHaveLength(targets.length - 1);
      expect(tcp.connections()).toBe(0);
      expect(udp.packets()).toBe(0);
      await expect(stat(marker)).rejects.toThrow();
      // The allowed site loads as a page; a closed address is named as the fence's, with the remedy.
      expect((await rest(server.url, '/browser/navigate', { url: `${siteUrl}/login.html` }, ws)).body).toMatchObject({
        title: 'Login',
      });
      const closed = await rest(server.url, '/browser/navigate', { url: 'http://10.255.255.1/' }, ws);
      expect(closed.status).toBe(502);
      expect(JSON.stringify(closed.body)).toContain('the fence closes that address');
      expect(JSON.stringify(closed.body)).toContain('FENCE_ALLOW');
      const port = await rest(server.url, '/browser/navigate', { url: `http://127.0.0.1:${drivers[0]}/status` }, ws);
      expect(port.status).toBe(502);
      expect(JSON.stringify(port.body)).toContain(`BROWSER_LOOPBACK_PORTS (now: ${sitePort})`);
      await rest(server.url, '/browser/end-browser', {}, ws);
    },
  );
});

describe('the same attack without the fence (BROWSER_FENCE=off)', () => {
  it('runs the program through chromedriver: the chain is real, the banner says so', { timeout: 120_000 }, async () => {
    const grid = await startStockStandalone();
    const dataDir = await mkdtemp(join(tmpdir(), 'sf-fence-grid-data-'));
    const server = await spawnReplica({ GRID_URL: grid.url, BROWSER_FENCE: 'off', FLOW_DATA_DIR: dataDir });
    try {
      expect(server.output()).toContain(
        "Fence:    NONE (BROWSER_FENCE=off): a page can reach its node's chromedriver and run programs there",
      );
      const ws = { 'X-Workspace': 'unfenced' };
      expect((await rest(server.url, '/browser/open-session', {}, ws)).status).toBe(200);
      const marker = join(markers, `unfenced-${randomBytes(6).toString('hex')}`);
      const targets = driverPorts().map((port) => ({
        name: `chromedriver ${port}`,
        kind: 'fetch',
        url: `http://127.0.0.1:${port}/session`,
        method: 'POST',
        body: newSession('chrome', marker),
      }));
      const udp = await udpListener();
      try {
        await attackFromPage(server.url, siteUrl, 'unfenced', targets, udp.port);
      } finally {
        udp.close();
      }
      expect((await stat(marker)).isFile()).toBe(true);
    } finally {
      await server.kill('SIGTERM');
      await grid.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
