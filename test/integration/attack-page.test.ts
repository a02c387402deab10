import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { browserCapabilities } from '../../src/grid/capabilities.js';
import { BROWSER_GROUP, GRID_USER } from '../../src/embedded-grid/index.js';
import { Grid, gridFetch, withoutCredentials, type OpenedBrowser } from '../../src/grid/grid.js';
import { sessionCapabilities } from '../../src/grid/session-lookup.js';
import {
  fromBrowserIdentity,
  METADATA_SPELLINGS,
  rawRequests,
  RAW_SPELLINGS,
  URL_SPELLINGS,
} from '../helpers/host-spellings.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { secretsDir } from '../helpers/secrets.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

// A hostile page on the embedded Grid, given the worst case: its own real Grid session id and
// every port of the host that matters. From its own script it tries each one; the test reads
// back what answered. The page is served from loopback (the fixture site), so even the checks
// that trust loopback origins (chromedriver's) would let it in: only the fence holds.

/** Each Grid's browsers run in a group of their own, one of the pool (account.ts). */
const BROWSER_GROUP_OF_A_GRID = new RegExp(`^${BROWSER_GROUP}-\\d+$`);
const canary = `canary-${randomBytes(12).toString('hex')}`;
const siteUrl = inject('siteUrl');
const grid = new Grid(inject('gridUrl'));
const gridAddress = withoutCredentials(inject('gridUrl'));
let secrets: string;
let secretFile: string;
let worldDir: string;
let worldFile: string;
let dataDir: string;
let redis: RunningRedis;
let server: RunningServer;
let browser: OpenedBrowser;
let driver: WebDriver;
/** every answer the test got, grepped for the canary at the end */
const answers: string[] = [];

beforeAll(async () => {
  secrets = await secretsDir({ bank: { password: canary } });
  secretFile = join(secrets, 'bank', 'password');
  await chmod(join(secrets, 'bank'), 0o700);
  await chmod(secretFile, 0o600);
  worldDir = await mkdtemp(join(tmpdir(), 'sf-world-'));
  await chmod(worldDir, 0o755);
  worldFile = join(worldDir, 'notes.txt');
  await writeFile(worldFile, `world-readable ${canary}`, { mode: 0o644 });
  dataDir = join(await mkdtemp(join(tmpdir(), 'sf-attack-')), 'data');
  redis = await startRedis();
  server = await startServer({ SECRETS_DIRS: secrets, FLOW_DATA_DIR: dataDir, MCP_AUTH_TOKEN: `token-${canary}` });
  browser = await grid.open('chrome', { width: 1280, height: 900 });
  driver = grid.attach(browser.gridId, browser.capabilities);
});

afterAll(async () => {
  await grid.end(browser.gridId).catch(() => undefined);
  await server?.close();
  await redis?.stop();
  await Promise.all([secrets, worldDir, join(dataDir, '..')].map((dir) => rm(dir, { recursive: true, force: true })));
  for (const answer of answers) {
    expect(answer).not.toContain(canary);
  }
});

// What the supervisor gives the JVM, what sh and sg add, and what Debian's /usr/bin/chromium
// exports (its flags file and the public API keys it ships): nothing of the server's own.
const MINIMAL_ENVIRONMENT = [
  'HOME',
  'PATH',
  'TMPDIR',
  'LANG',
  'PWD',
  'SHLVL',
  '_',
  'CHROMIUM_FLAGS',
  'CHROME_VERSION_EXTRA',
  'CHROME_DESKTOP',
  'CHROME_WRAPPER',
  'GOOGLE_API_KEY',
  'GOOGLE_DEFAULT_CLIENT_ID',
  'GOOGLE_DEFAULT_CLIENT_SECRET',
];

interface Target {
  name: string;
  kind: 'fetch' | 'ws';
  url: string;
  method?: string;
  body?: string;
  send?: string;
}

interface Outcome {
  name: string;
  reached: boolean;
  how: string;
  answer?: string;
}

async function attackFromPage(targets: Target[], on: WebDriver = driver): Promise<Outcome[]> {
  await on.get(`${siteUrl}/attack.html`);
  await on.executeScript('window.attack(arguments[0])', targets);
  await on.wait(async () => (await on.getTitle()) === 'Attack done', 15_000);
  const text = String(await on.executeScript('return document.getElementById("results").textContent'));
  answers.push(text);
  return JSON.parse(text) as Outcome[];
}

/** The ports the Grid's chromedrivers listen on (one per browser), read from their command lines. */
function chromedriverPorts(): number[] {
  const lines = execFileSync('ps', ['-u', GRID_USER, '-o', 'args=']).toString().split('\n');
  return lines.flatMap((line) => {
    const port = /chromedriver --port=(\d+)/.exec(line)?.[1];
    return port ? [Number(port)] : [];
  });
}

/** A WebSocket from this test process (not fenced), with the Origin header a page would send. */
function socketFromHere(
  url: string,
  origin?: string,
  message: unknown = { id: 1, method: 'Target.getTargets', params: {} },
): Promise<{ opened: boolean; status?: number; answer?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, origin ? { origin } : {});
    const timer = setTimeout(() => {
      socket.terminate();
      resolve({ opened: false });
    }, 5_000);
    socket.on('open', () => socket.send(JSON.stringify(message)));
    socket.on('message', (data: Buffer) => {
      clearTimeout(timer);
      socket.close();
      resolve({ opened: true, answer: data.toString() });
    });
    socket.on('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      socket.terminate();
      resolve({ opened: false, status: response.statusCode });
    });
    socket.on('error', () => {
      clearTimeout(timer);
      resolve({ opened: false });
    });
  });
}

/** Whether `pid` runs under `ancestor`: this run's Grid hangs under the vitest process that started it, not another run's. */
function runsUnder(pid: number, ancestor: number): boolean {
  for (let at = pid; at > 1;) {
    if (at === ancestor) {
      return true;
    }
    const stat = (() => {
      try {
        return readFileSync(`/proc/${at}/stat`, 'utf8');
      } catch {
        return '';
      }
    })();
    at = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(at)) {
      return false;
    }
  }
  return false;
}

/** The Grid user's processes of this run's Grid whose `ps` columns (after the pid) match `pattern`: the first group of each. */
function ofThisGrid(pattern: RegExp, columns = 'pid=,args='): string[] {
  const lines = execFileSync('ps', ['-u', GRID_USER, '-o', columns]).toString().split('\n');
  return lines.flatMap((line) => {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    const found = match ? pattern.exec(match[2] ?? '') : null;
    return match && found?.[1] && runsUnder(Number(match[1]), process.ppid) ? [found[1]] : [];
  });
}

describe('a hostile page on the embedded Grid', () => {
  it('reaches nothing on the host: not the Grid, chromedriver, DevTools, the server or Redis', async () => {
    const id = browser.gridId;
    const grid = gridAddress;
    const gridWs = grid.replace(/^http/, 'ws');
    const capabilities = await sessionCapabilities(inject('gridUrl'), id);
    const debuggerAddress = String(
      (capabilities?.['goog:chromeOptions'] as { debuggerAddress?: string } | undefined)?.debuggerAddress,
    );
    const devtools = (await (await fetch(`http://${debuggerAddress}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    const drivers = chromedriverPorts();
    expect(drivers.length).toBeGreaterThan(0);
    // A listener the page was not allowed: it proves the fence, not CORS, stops the page.
    let controlConnections = 0;
    const control: Server = createServer((_request, response) => response.end('control'));
    control.on('connection', () => (controlConnections += 1));
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
    const controlPort = (control.address() as { port: number }).port;
    const cdp = JSON.stringify({ id: 1, method: 'Target.createTarget', params: { url: `file://${secretFile}` } });
    const bidi = JSON.stringify({ id: 1, method: 'session.status', params: {} });
    const targets: Target[] = [
      { name: 'the fixture site (allowed)', kind: 'fetch', url: `${siteUrl}/table.html` },
      { name: 'an unallowed local listener', kind: 'fetch', url: `http://127.0.0.1:${controlPort}/` },
      { name: 'the same listener as 0.0.0.0', kind: 'fetch', url: `http://0.0.0.0:${controlPort}/` },
      { name: 'Grid /status', kind: 'fetch', url: `${grid}/status` },
      { name: 'Grid /status via localhost', kind: 'fetch', url: `${grid.replace('127.0.0.1', 'localhost')}/status` },
      { name: 'Grid own url', kind: 'fetch', url: `${grid}/session/${id}/url` },
      { name: 'Grid own cookies', kind: 'fetch', url: `${grid}/session/${id}/cookie` },
      { name: 'Grid own source', kind: 'fetch', url: `${grid}/session/${id}/source` },
      {
        name: 'Grid navigate',
        kind: 'fetch',
        url: `${grid}/session/${id}/url`,
        method: 'POST',
        body: JSON.stringify({ url: `file://${secretFile}` }),
      },
      {
        name: 'Grid graphql',
        kind: 'fetch',
        url: `${grid}/graphql`,
        method: 'POST',
        body: JSON.stringify({ query: '{ sessionsInfo { sessions { id } } }' }),
      },
      { name: 'Grid se/cdp', kind: 'ws', url: `${gridWs}/session/${id}/se/cdp`, send: cdp },
      { name: 'Grid se/bidi', kind: 'ws', url: `${gridWs}/session/${id}/se/bidi`, send: bidi },
      ...drivers.flatMap((port): Target[] => [
        { name: `chromedriver ${port} /status`, kind: 'fetch', url: `http://127.0.0.1:${port}/status` },
        {
          name: `chromedriver ${port} navigate`,
          kind: 'fetch',
          url: `http://127.0.0.1:${port}/session/${id}/url`,
          method: 'POST',
          body: JSON.stringify({ url: 'about:blank' }),
        },
        { name: `chromedriver ${port} bidi`, kind: 'ws', url: `ws://127.0.0.1:${port}/session/${id}`, send: bidi },
      ]),
      { name: 'DevTools /json/version', kind: 'fetch', url: `http://${debuggerAddress}/json/version` },
      { name: 'DevTools browser websocket', kind: 'ws', url: devtools.webSocketDebuggerUrl, send: cdp },
      { name: 'selenium-flow /info', kind: 'fetch', url: `${server.url}/info` },
      { name: 'selenium-flow /mcp', kind: 'fetch', url: `${server.url}/mcp`, method: 'POST', body: '{}' },
      { name: 'Redis', kind: 'fetch', url: `http://127.0.0.1:${redis.port}/`, method: 'POST', body: 'INFO\r\n' },
      { name: 'Redis websocket', kind: 'ws', url: `ws://127.0.0.1:${redis.port}/` },
      { name: 'the secret file', kind: 'fetch', url: `file://${secretFile}` },
      { name: 'a world-readable file', kind: 'fetch', url: `file://${worldFile}` },
    ];
    const before = await redisConnections(redis.port);
    let outcomes: Outcome[];
    try {
      outcomes = await attackFromPage(targets);
    } finally {
      await new Promise((resolve) => control.close(resolve));
    }
    const [allowed, ...forbidden] = outcomes;
    // The page's probe does see a server that answers (the one port it may open).
    expect(allowed).toMatchObject({ name: 'the fixture site (allowed)', reached: true });
    expect(forbidden.filter((o) => o.reached)).toEqual([]);
    expect(forbidden).toHaveLength(targets.length - 1);
    expect(controlConnections).toBe(0);
    // Redis saw no connection but the test's own INFO calls (one before, one after).
    expect(await redisConnections(redis.port)).toBe(before + 1);
  });

  it('reaches nothing on the host under any spelling of its address, from the page or as a raw request', async () => {
    // A listener on every address of this host (dual stack), on a port the fence closes.
    let connections = 0;
    const control = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => control.listen(0, '::', resolve));
    const port = (control.address() as AddressInfo).port;
    // The watchable browser's VNC server (x11vnc, asking no password): the port the finding reached.
    const [vnc] = ofThisGrid(/^x11vnc .*-rfbport (\d+)/).map(Number);
    const [proxyAddress] = ofThisGrid(/\/chromium\/chromium .*--proxy-server=http:\/\/(127\.\d+\.\d+\.\d+:\d+)/);
    expect(vnc, 'the Grid of this run has a watchable slot').toBeGreaterThan(0);
    expect(proxyAddress).toBeDefined();
    try {
      const targets = URL_SPELLINGS.flatMap((host): Target[] => [
        { name: `fetch ${host}`, kind: 'fetch', url: `http://${host}:${port}/` },
        { name: `websocket ${host}`, kind: 'ws', url: `ws://${host}:${port}/` },
      ]);
      const outcomes = await attackFromPage([
        { name: 'the fixture site (allowed)', kind: 'fetch', url: `${siteUrl}/table.html` },
        ...targets,
      ]);
      expect(outcomes[0]).toMatchObject({ reached: true });
      expect(outcomes.slice(1).filter((o) => o.reached)).toEqual([]);
      expect(outcomes).toHaveLength(targets.length + 1);

      // The same, and the spellings no browser sends, straight to the browser's own proxy address.
      const requests = rawRequests(RAW_SPELLINGS, [port, vnc ?? port]);
      const metadata = METADATA_SPELLINGS.map((spelling) => `CONNECT ${spelling}:80 HTTP/1.1\r\n\r\n`);
      // This Grid's own browser group: its firewall opens its proxy's port to that group alone.
      const [group] = ofThisGrid(/^(selenium-flow-browser-\d+) .*\/chromium\/chromium /, 'pid=,egroup:40=,args=');
      expect(group).toMatch(BROWSER_GROUP_OF_A_GRID);
      const identity = { user: GRID_USER, group: group ?? '' };
      const answers = await fromBrowserIdentity(identity, proxyAddress ?? '', [...requests, ...metadata]);
      const refused = answers.slice(0, requests.length);
      expect(requests.filter((_r, i) => !/^HTTP\/1\.1 40[03] /.test(refused[i] ?? ''))).toEqual([]);
      expect(refused.filter((a) => a.includes('RFB'))).toEqual([]);
      expect(answers.slice(requests.length).filter((a) => !/^HTTP\/1\.1 403 [\s\S]*metadata/.test(a))).toEqual([]);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => control.close(resolve));
    }
  });

  it('would own its browser through the Grid if it could reach it: the websocket proxies ask for no credentials', async () => {
    // The reason for the fence, checked from this (unfenced) process: credentials close the
    // Grid's HTTP routes, not its CDP and BiDi proxies.
    expect((await fetch(`${gridAddress}/status`)).status).toBe(401);
    expect((await gridFetch(`${inject('gridUrl')}/status`, { method: 'GET' })).status).toBe(200);
    const gridWs = gridAddress.replace(/^http/, 'ws');
    const opened = await socketFromHere(`${gridWs}/session/${browser.gridId}/se/cdp`, siteUrl);
    expect(opened.opened).toBe(true);
    expect(opened.answer).toContain('targetInfos');
  });

  it('leaves the server what it uses: BiDi through the Grid answers the server side', async () => {
    const bidi = await new Builder()
      .usingServer(inject('gridUrl'))
      .withCapabilities({ ...browserCapabilities('chrome', { width: 800, height: 600 }), webSocketUrl: true })
      .build();
    try {
      const url = String((await bidi.getCapabilities()).get('webSocketUrl'));
      expect(url).toMatch(/\/se\/bidi$/);
      const answer = await socketFromHere(url, undefined, { id: 1, method: 'session.status', params: {} });
      expect(answer.opened).toBe(true);
      expect(answer.answer).toContain('"result"');
    } finally {
      await bidi.quit();
    }
  });

  it('finds chromedriver open to loopback origins and DevTools closed to any page origin', async () => {
    const capabilities = await sessionCapabilities(inject('gridUrl'), browser.gridId);
    const debuggerAddress = String(
      (capabilities?.['goog:chromeOptions'] as { debuggerAddress?: string } | undefined)?.debuggerAddress,
    );
    const devtools = (await (await fetch(`http://${debuggerAddress}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    expect(await socketFromHere(devtools.webSocketDebuggerUrl, siteUrl)).toMatchObject({ opened: false, status: 403 });
    const port = chromedriverPorts()[0];
    const driverStatus = (origin: string) => fetch(`http://127.0.0.1:${port}/status`, { headers: { origin } });
    expect((await driverStatus('http://evil.example')).status).not.toBe(200);
    // A page served from loopback passes chromedriver's own check: only the fence stops it.
    expect((await driverStatus(siteUrl)).status).toBe(200);
  });

  it('cannot open files: file:// is blocked, and the browsers\u2019 user cannot read the server\u2019s files', async () => {
    for (const file of [secretFile, worldFile]) {
      await driver.get(`file://${file}`).catch(() => undefined);
      const source = await driver.getPageSource();
      answers.push(source);
      // Chromium's page for a URL its policy blocks.
      expect(source).toContain('This page is blocked');
      expect(source).not.toContain(canary);
    }
    // Below the policy, the OS: the Grid's user reads neither the secret nor the data directory.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    for (const path of [secretFile, dataDir]) {
      expect(() =>
        execFileSync('setpriv', ['--reuid', GRID_USER, '--regid', GRID_USER, '--clear-groups', 'test', '-r', path]),
      ).toThrow();
    }
  });

  it('runs as the unprivileged Grid user, Chromium sandboxed in its own group, with a minimal environment', async () => {
    // In CI the browser now and then ended on this navigation when it came straight from the
    // blocked file:// page of the test before; it starts from a blank page instead.
    await driver.get('about:blank');
    await driver.get('chrome://sandbox');
    const sandbox = String(await driver.executeScript('return document.body.innerText'));
    answers.push(sandbox);
    expect(sandbox).toMatch(/adequately sandboxed/i);
    const processes = execFileSync('ps', ['-u', GRID_USER, '-o', 'pid=,egroup:40=,args='])
      .toString()
      .trim()
      .split('\n');
    const java = processes.find((line) => /\/java .*selenium-server/.test(line));
    // This run's Grid's: another Grid on the host runs in a group of its own.
    const chromium = processes.filter(
      (line) => /\/chromium\/chromium /.test(line) && runsUnder(Number(line.trim().split(/\s+/)[0]), process.ppid),
    );
    expect(java).toBeDefined();
    expect(chromium.length).toBeGreaterThan(0);
    for (const line of chromium) {
      expect(line.trim().split(/\s+/)[1]).toMatch(BROWSER_GROUP_OF_A_GRID);
      expect(line).not.toContain('--no-sandbox');
    }
    // Chromium's child processes write their titles over their environment block: read the browser process's.
    for (const line of [java ?? '', ...chromium.filter((l) => !l.includes('--type='))]) {
      const environ = await readFile(`/proc/${line.trim().split(/\s+/)[0]}/environ`, 'utf8').catch(() => '');
      answers.push(environ);
      const names = environ
        .split('\0')
        .filter(Boolean)
        .map((entry) => entry.split('=')[0]);
      expect(names.filter((name) => !MINIMAL_ENVIRONMENT.includes(name ?? ''))).toEqual([]);
    }
  });

  it('does not publish the Grid: /info names no address of it, no command line its password', async () => {
    const info = await rest(server.url, '/info');
    answers.push(JSON.stringify(info.body));
    expect(JSON.stringify(info.body)).not.toContain(new URL(gridAddress).port);
    expect(info.body).not.toHaveProperty('grid');
    expect(execFileSync('ps', ['-eo', 'args']).toString()).not.toContain(new URL(inject('gridUrl')).password);
  });
});

/** How many connections Redis has accepted so far (this INFO call's own included). */
async function redisConnections(port: number): Promise<number> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    const info = await client.info('stats');
    return Number(/total_connections_received:(\d+)/.exec(info)?.[1]);
  } finally {
    client.disconnect();
  }
}

/** The Grid user's Firefox browser processes (not their content processes): pid, group, arguments. */
function firefoxProcesses(): { pid: string; group: string; args: string }[] {
  const lines = execFileSync('ps', ['-u', GRID_USER, '-o', 'pid=,egroup:40=,args=']).toString().trim().split('\n');
  return (
    lines
      .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && /firefox-esr\/firefox-esr /.test(m[3] ?? ''))
      .filter((m) => !(m[3] ?? '').includes('-contentproc'))
      // This run's Grid's: another Grid on the host runs in a group of its own.
      .filter((m) => runsUnder(Number(m[1]), process.ppid))
      .map((m) => ({ pid: m[1] ?? '', group: m[2] ?? '', args: m[3] ?? '' }))
  );
}

/** Every port a Firefox of the Grid listens on for its driver: geckodriver's, Marionette's, its BiDi server's. */
async function firefoxDriverPorts(): Promise<{ geckodriver: number[]; marionette: number[]; bidi: number[] }> {
  const lines = execFileSync('ps', ['-u', GRID_USER, '-o', 'args=']).toString().split('\n');
  const geckodriver = lines.flatMap((line) => {
    const port = /geckodriver --port=(\d+)/.exec(line)?.[1];
    return port ? [Number(port)] : [];
  });
  const marionette: number[] = [];
  const bidi: number[] = [];
  for (const { args } of firefoxProcesses()) {
    const profile = /-profile (\S+)/.exec(args)?.[1];
    if (!profile) {
      continue;
    }
    const active = await readFile(join(profile, 'MarionetteActivePort'), 'utf8').catch(() => '');
    if (active.trim() !== '') {
      marionette.push(Number(active.trim()));
    }
    const server = await readFile(join(profile, 'WebDriverBiDiServer.json'), 'utf8').catch(() => '');
    const port = server ? (JSON.parse(server) as { ws_port?: number }).ws_port : undefined;
    if (port) {
      bidi.push(port);
    }
  }
  return { geckodriver, marionette, bidi };
}

describe('a hostile page in Firefox on the embedded Grid', () => {
  let firefox: OpenedBrowser;
  let fox: WebDriver;

  beforeAll(async () => {
    firefox = await grid.open('firefox', { width: 1280, height: 900 });
    fox = grid.attach(firefox.gridId, firefox.capabilities);
  });

  afterAll(async () => {
    await grid.end(firefox.gridId).catch(() => undefined);
  });

  it('reaches nothing on the host: not the Grid, geckodriver, Marionette, its BiDi server, the server or Redis', async () => {
    const id = firefox.gridId;
    const gridWs = gridAddress.replace(/^http/, 'ws');
    const ports = await firefoxDriverPorts();
    expect(ports.geckodriver.length).toBeGreaterThan(0);
    expect(ports.marionette.length).toBeGreaterThan(0);
    expect(ports.bidi.length).toBeGreaterThan(0);
    const bidi = JSON.stringify({ id: 1, method: 'session.status', params: {} });
    // Marionette speaks no HTTP, so a failed fetch alone proves nothing: a listener that counts
    // connections shows the fence, not the protocol, stops the page.
    let controlConnections = 0;
    const control: Server = createServer((_request, response) => response.end('control'));
    control.on('connection', () => (controlConnections += 1));
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
    const controlPort = (control.address() as { port: number }).port;
    const targets: Target[] = [
      { name: 'the fixture site (allowed)', kind: 'fetch', url: `${siteUrl}/table.html` },
      { name: 'an unallowed local listener', kind: 'fetch', url: `http://127.0.0.1:${controlPort}/` },
      { name: 'Grid /status', kind: 'fetch', url: `${gridAddress}/status` },
      { name: 'Grid own url', kind: 'fetch', url: `${gridAddress}/session/${id}/url` },
      { name: 'Grid se/bidi', kind: 'ws', url: `${gridWs}/session/${id}/se/bidi`, send: bidi },
      ...ports.geckodriver.flatMap((port): Target[] => [
        { name: `geckodriver ${port} /status`, kind: 'fetch', url: `http://127.0.0.1:${port}/status` },
        {
          name: `geckodriver ${port} navigate`,
          kind: 'fetch',
          url: `http://127.0.0.1:${port}/session/${id}/url`,
          method: 'POST',
          body: JSON.stringify({ url: 'about:blank' }),
        },
      ]),
      ...ports.marionette.map((port): Target => ({
        name: `Marionette ${port}`,
        kind: 'fetch',
        url: `http://127.0.0.1:${port}/`,
      })),
      ...ports.bidi.map((port): Target => ({
        name: `Firefox BiDi ${port}`,
        kind: 'ws',
        url: `ws://127.0.0.1:${port}/session`,
        send: bidi,
      })),
      { name: 'selenium-flow /info', kind: 'fetch', url: `${server.url}/info` },
      { name: 'Redis', kind: 'fetch', url: `http://127.0.0.1:${redis.port}/`, method: 'POST', body: 'INFO\r\n' },
      { name: 'the secret file', kind: 'fetch', url: `file://${secretFile}` },
    ];
    const before = await redisConnections(redis.port);
    let outcomes: Outcome[];
    try {
      outcomes = await attackFromPage(targets, fox);
    } finally {
      await new Promise((resolve) => control.close(resolve));
    }
    const [allowed, ...forbidden] = outcomes;
    expect(controlConnections).toBe(0);
    expect(allowed).toMatchObject({ name: 'the fixture site (allowed)', reached: true });
    expect(forbidden.filter((o) => o.reached)).toEqual([]);
    expect(forbidden).toHaveLength(targets.length - 1);
    expect(await redisConnections(redis.port)).toBe(before + 1);
  });

  it('cannot open files: the Firefox policy blocks file://', async () => {
    for (const file of [secretFile, worldFile]) {
      const refused = await fox.get(`file://${file}`).then(
        () => '',
        (error: unknown) => String(error),
      );
      const source = await fox.getPageSource();
      answers.push(refused, source);
      expect(refused).toContain('blockedByPolicy');
      expect(source).not.toContain(canary);
    }
  });

  it('runs as the unprivileged Grid user, in the browser group, with a minimal environment', async () => {
    const processes = firefoxProcesses();
    expect(processes.length).toBeGreaterThan(0);
    for (const firefoxProcess of processes) {
      expect(firefoxProcess.group).toMatch(BROWSER_GROUP_OF_A_GRID);
      const environ = await readFile(`/proc/${firefoxProcess.pid}/environ`, 'utf8').catch(() => '');
      answers.push(environ);
      const names = environ
        .split('\0')
        .filter(Boolean)
        .map((entry) => entry.split('=')[0] ?? '');
      // geckodriver adds its own MOZ_* variables for the browser it starts.
      expect(names.filter((name) => !MINIMAL_ENVIRONMENT.includes(name) && !name.startsWith('MOZ_'))).toEqual([]);
    }
  });
});
