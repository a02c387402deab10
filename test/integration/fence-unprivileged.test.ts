import { execFileSync } from 'node:child_process';
import type { BrowserKind } from '../../src/grid/capabilities.js';
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  fromBrowserIdentity,
  METADATA_SPELLINGS,
  rawRequests,
  RAW_SPELLINGS,
  URL_SPELLINGS,
} from '../helpers/host-spellings.js';
import { rest } from '../helpers/server.js';
import {
  ensureUnprivilegedUser,
  serveAsUnprivileged,
  UNPRIVILEGED_USER,
  unprivilegedHome,
  type UnprivilegedServer,
} from '../helpers/unprivileged.js';

// selenium-flow as people run it: `npm start` or `stdio` as themselves, not root. Then there is no
// second OS user and no nftables table: the browsers' proxy is the whole fence. This file runs the
// server (and so its embedded Grid) as a fresh unprivileged user and attacks from a page served on
// an allowed loopback port, on both browsers: the real chain that ran code as the server's user
// (scan for chromedriver's port, POST a session whose binary is python3) must write no marker.

const USER = UNPRIVILEGED_USER;
const siteUrl = inject('siteUrl');
const sitePort = Number(new URL(siteUrl).port);
let home: string;
let markerDir: string;
let served: UnprivilegedServer;
let base: string;
/** a secret leashed to the fixture site's origin, which the server (the user) may read */
const CANARY = `canary-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  const { uid, gid } = ensureUnprivilegedUser();
  home = await unprivilegedHome();
  markerDir = join(home, 'markers');
  await mkdir(markerDir);
  await chown(markerDir, uid, gid);
  const secret = join(home, 'secrets', 'canary');
  await mkdir(secret, { recursive: true });
  await writeFile(join(secret, 'password'), CANARY);
  await writeFile(join(secret, '_allowed_urls'), `${siteUrl}\n`);
  for (const [path, mode] of [
    [join(home, 'secrets'), 0o700],
    [secret, 0o700],
    [join(secret, 'password'), 0o600],
    [join(secret, '_allowed_urls'), 0o600],
  ] as const) {
    await chown(path, uid, gid);
    await chmod(path, mode);
  }
  served = await serveAsUnprivileged(home, {
    FLOW_DATA_DIR: join(home, 'data'),
    EMBEDDED_LIVE_VIEWS: '0',
    BROWSER_LOOPBACK_PORTS: String(sitePort),
    SECRETS_DIRS: join(home, 'secrets'),
  });
  base = served.base;
}, 120_000);

afterAll(async () => {
  await served?.stop();
  await rm(home, { recursive: true, force: true });
});

interface Outcome {
  name: string;
  reached: boolean;
  how: string;
}

/** The ports a command line of the user's processes names with `--port=N` / `--port N`. */
function portsOf(pattern: RegExp): number[] {
  const lines = execFileSync('ps', ['-u', USER, '-o', 'args=']).toString().split('\n');
  return lines.flatMap((line) => {
    const port = pattern.exec(line)?.[1];
    return port ? [Number(port)] : [];
  });
}

/** The first group of `pattern` in the user's processes' command lines. */
function portsOfText(pattern: RegExp): string[] {
  const lines = execFileSync('ps', ['-u', USER, '-o', 'args=']).toString().split('\n');
  return lines.flatMap((line) => {
    const found = pattern.exec(line)?.[1];
    return found ? [found] : [];
  });
}

/** The driver's port of the user's browser (chromedriver's or geckodriver's). */
function driverPortOf(browser: BrowserKind): number {
  const [port] = portsOf(browser === 'chrome' ? /chromedriver --port=(\d+)/ : /geckodriver --port[= ](\d+)/);
  return port ?? 0;
}

/** Firefox's address at the proxy, from the user.js its wrapper wrote into the profile. */
async function firefoxProxy(): Promise<string[]> {
  const [profile] = portsOfText(/firefox-esr .*-profile (\S+)/);
  const prefs = await readFile(join(profile ?? '', 'user.js'), 'utf8');
  // The last line of a pref wins, as in Firefox: the wrapper's come last.
  const last = (pattern: RegExp) => [...prefs.matchAll(pattern)].at(-1)?.[1];
  const host = last(/user_pref\("network\.proxy\.http", "([^"]+)"\)/g);
  const port = last(/user_pref\("network\.proxy\.http_port", (\d+)\)/g);
  return host && port ? [`${host}:${port}`] : [];
}

/** Python code with no space, quote or `=` (chromedriver drops arguments with those): writes `file`. */
function payload(file: string): string {
  const code = Buffer.from(`open(${JSON.stringify(file)},"w").write("ran")`);
  return `-cexec(bytes((${[...code].join(',')})).decode())`;
}

function newSession(browser: BrowserKind, file: string): string {
  const options =
    browser === 'chrome'
      ? { 'goog:chromeOptions': { binary: '/usr/bin/python3', args: [payload(file)] } }
      : { 'moz:firefoxOptions': { binary: '/usr/bin/python3', args: [payload(file)] } };
  return JSON.stringify({ capabilities: { alwaysMatch: { browserName: browser, ...options } } });
}

async function listener(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const control: Server = createServer((_request, response) => response.end('control'));
  control.on('connection', () => (count += 1));
  // Every address of this host (dual stack): a spelling of any of them that got through would count.
  await new Promise<void>((resolve) => control.listen(0, '::', resolve));
  return {
    port: (control.address() as { port: number }).port,
    connections: () => count,
    close: () => new Promise((resolve) => control.close(() => resolve())),
  };
}

async function udpListener(): Promise<{ port: number; packets: () => number; close: () => void }> {
  let count = 0;
  const socket: UdpSocket = createSocket('udp4');
  socket.on('message', () => (count += 1));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, packets: () => count, close: () => socket.close() };
}

/** The attack page's probes, then WebRTC (STUN and TURN over UDP) and WebTransport at `udpPort`, run in the page. */
async function attack(workspace: string, targets: object[], udpPort: number): Promise<Outcome[]> {
  const ws = { 'X-Workspace': workspace };
  expect((await rest(base, '/browser/navigate', { url: `${siteUrl}/attack.html` }, ws)).status).toBe(200);
  const script = `
    const udp = async (port) => {
      const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:' + port },
        { urls: 'turn:127.0.0.1:' + port + '?transport=udp', username: 'u', credential: 'c' }] });
      pc.createDataChannel('x');
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 2500));
      pc.close();
      if (typeof WebTransport === 'function') {
        try { const t = new WebTransport('https://127.0.0.1:' + port + '/'); await Promise.race([t.ready, new Promise((r) => setTimeout(r, 2500))]); } catch {}
      }
    };
    await Promise.all([window.attack(${JSON.stringify(targets)}), udp(${udpPort})]);
    return document.getElementById('results').textContent;`;
  const answer = await rest(base, '/browser/execute-script', { script: `return (async () => {${script}})()` }, ws);
  expect(answer.status).toBe(200);
  return JSON.parse(String(answer.body.result)) as Outcome[];
}

describe.each(['chrome', 'firefox'] as const)('the embedded Grid run as an ordinary user, %s', (browser) => {
  it('says which fence is in force: the banner and /ready', async () => {
    expect(served.output()).toContain(`Fence:    proxy (host ports closed but ${sitePort})`);
    expect(served.output()).toContain(`embedded Grid's browsers fenced: proxy (host ports closed but ${sitePort})`);
    const ready = await rest(base, '/ready');
    expect(ready.body).toMatchObject({ status: 'ok', fence: `proxy (host ports closed but ${sitePort})` });
  });

  it(
    'a loopback page cannot make its driver run a program, nor reach the Grid, the server, a host port or UDP',
    { timeout: 90_000 },
    async () => {
      const workspace = `fence-${browser}`;
      const ws = { 'X-Workspace': workspace };
      expect((await rest(base, '/browser/open-session', { browser }, ws)).status).toBe(200);
      const driverPattern = browser === 'chrome' ? /chromedriver --port=(\d+)/ : /geckodriver --port[= ](\d+)/;
      const [driverPort] = portsOf(driverPattern);
      expect(driverPort).toBeGreaterThan(0);
      const [gridPort] = portsOf(/selenium-server.* --port (\d+)/);
      const serverPort = Number(new URL(base).port);
      const marker = join(markerDir, `${browser}-${randomBytes(6).toString('hex')}`);
      const tcp = await listener();
      const udp = await udpListener();
      // The page finds the driver by scanning, as the attack did: 64 ports around it (the real one among them).
      const scan = Array.from({ length: 64 }, (_, i) => (driverPort ?? 0) - 32 + i).filter((p) => p > 0 && p < 65_536);
      const targets = [
        { name: 'the fixture site (allowed)', kind: 'fetch', url: `${siteUrl}/table.html` },
        ...scan.map((port) => ({
          name: `driver scan ${port}`,
          kind: 'fetch',
          url: `http://127.0.0.1:${port}/session`,
          method: 'POST',
          body: newSession(browser, marker),
        })),
        { name: 'the driver via localhost', kind: 'fetch', url: `http://localhost:${driverPort}/status` },
        { name: 'the driver via [::1]', kind: 'fetch', url: `http://[::1]:${driverPort}/status` },
        { name: 'the driver via 127.0.0.2', kind: 'fetch', url: `http://127.0.0.2:${driverPort}/status` },
        { name: 'the Grid', kind: 'fetch', url: `http://127.0.0.1:${gridPort}/status` },
        { name: 'the server', kind: 'fetch', url: `http://127.0.0.1:${serverPort}/info` },
        { name: 'the server, websocket', kind: 'ws', url: `ws://127.0.0.1:${serverPort}/mcp` },
        { name: 'an unallowed listener', kind: 'fetch', url: `http://127.0.0.1:${tcp.port}/` },
        { name: 'the same as 0.0.0.0', kind: 'fetch', url: `http://0.0.0.0:${tcp.port}/` },
        ...URL_SPELLINGS.map((host) => ({
          name: `the same as ${host}`,
          kind: 'fetch',
          url: `http://${host}:${tcp.port}/`,
        })),
        { name: 'the same by websocket as [0::ffff:7f00:1]', kind: 'ws', url: `ws://[0::ffff:7f00:1]:${tcp.port}/` },
      ];
      let outcomes: Outcome[];
      try {
        outcomes = await attack(workspace, targets, udp.port);
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

      // The control: the same driver still serves its WebDriver client (the session goes on), and
      // for Chromium the very request, sent from outside the fence with a loopback Origin, does run
      // the program: the chain is real, only the fence stopped it.
      const went = await rest(base, '/browser/navigate', { url: `${siteUrl}/login.html` }, ws);
      expect(went.body).toMatchObject({ title: 'Login' });
      if (browser === 'chrome') {
        await fetch(`http://127.0.0.1:${driverPort}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: siteUrl },
          body: newSession('chrome', marker),
        });
        expect((await stat(marker)).isFile()).toBe(true);
      }
      await rest(base, '/browser/end-browser', {}, ws);
    },
  );

  it('the proxy refuses the host under every spelling to a raw request with the browser’s identity', async () => {
    const ws = { 'X-Workspace': `raw-${browser}` };
    expect((await rest(base, '/browser/open-session', { browser }, ws)).status).toBe(200);
    const tcp = await listener();
    try {
      // The browser's own address at the proxy: Chromium's command line, or the prefs Firefox's wrapper wrote.
      const [proxy] =
        browser === 'chrome' ? portsOfText(/--proxy-server=http:\/\/(127\.\d+\.\d+\.\d+:\d+)/) : await firefoxProxy();
      expect(proxy).toMatch(/^127\.\d+\.\d+\.\d+:\d+$/);
      const requests = rawRequests(RAW_SPELLINGS, [tcp.port, driverPortOf(browser)]);
      const metadata = METADATA_SPELLINGS.map((host) => `CONNECT ${host}:80 HTTP/1.1\r\n\r\n`);
      const answers = await fromBrowserIdentity({ user: USER, group: USER }, proxy ?? '', [...requests, ...metadata]);
      expect(requests.filter((_r, i) => !/^HTTP\/1\.1 40[03] /.test(answers[i] ?? ''))).toEqual([]);
      expect(answers.slice(requests.length).filter((a) => !/^HTTP\/1\.1 403 [\s\S]*metadata/.test(a))).toEqual([]);
      expect(tcp.connections()).toBe(0);
    } finally {
      await tcp.close();
      await rest(base, '/browser/end-browser', {}, ws);
    }
  });

  it('a frame from another origin that hooks its own functions gets no secret', { timeout: 60_000 }, async () => {
    const ws = { 'X-Workspace': `secret-${browser}` };
    // Another origin of the same fixture site: localhost, not 127.0.0.1.
    const other = siteUrl.replace('127.0.0.1', 'localhost');
    expect((await rest(base, '/browser/open-session', { browser }, ws)).status).toBe(200);
    try {
      const host = `${siteUrl}/hostile/apply-thief-host.html?b=${encodeURIComponent(other)}`;
      expect((await rest(base, '/browser/navigate', { url: host }, ws)).status).toBe(200);
      expect((await rest(base, '/browser/frame', { action: 'enter', selector: { css: '#thief' } }, ws)).status).toBe(
        200,
      );
      const secret = { name: 'canary', key: 'password' };
      const refused = await rest(
        base,
        '/browser/write',
        { selector: { css: '#password' }, secret, wait_timeout: 10 },
        ws,
      );
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(JSON.stringify(refused.body)).toContain(`would receive it is on ${other}`);
      // What the frame kept of the scripts run in it: no value (a kept value would come back withheld).
      const kept = await rest(base, '/browser/execute-script', { script: 'return window.__stolen.join(" ")' }, ws);
      expect(kept.body.withheld).toBeUndefined();
      expect(String(kept.body.result)).not.toContain(CANARY);
    } finally {
      await rest(base, '/browser/end-browser', {}, ws);
    }
  });

  it("a path typed into a field that is, or becomes, a file input never hands the page the user's file", async () => {
    const ws = { 'X-Workspace': `upload-${browser}` };
    // The user's own 0600 file: the browsers run as the user here, so they could read it.
    const path = join(home, 'secrets', 'canary', 'password');
    expect((await rest(base, '/browser/open-session', { browser }, ws)).status).toBe(200);
    try {
      expect((await rest(base, '/browser/navigate', { url: `${siteUrl}/hostile/becomes-file.html` }, ws)).status).toBe(
        200,
      );
      const file = await rest(base, '/browser/write', { selector: { css: '#upload' }, text: path }, ws);
      expect(file.status).toBe(400);
      expect(JSON.stringify(file.body)).toContain('use upload_file');
      // A text field until it takes focus, then a file input: geckodriver looks after its focus.
      const becomes = await rest(base, '/browser/write', { selector: { css: '#search' }, text: path }, ws);
      expect(becomes.status).toBe(400);
      expect(JSON.stringify(becomes.body)).toContain('is an input of type file');
      // A text field through the lookup, a file input by the time the keys come: they are only keys.
      expect((await rest(base, '/browser/write', { selector: { css: '#later' }, text: path }, ws)).status).toBe(200);
      const got = await rest(
        base,
        '/browser/execute-script',
        {
          script:
            "return [document.getElementById('got').textContent, document.getElementById('search').files?.length ?? 0, document.getElementById('later').type, document.getElementById('later').files?.length ?? 0]",
        },
        ws,
      );
      expect(got.body.result).toEqual(['', 0, 'file', 0]);
      // geckodriver reads a line starting with ~ from the browser's home, and ~/.. reaches any file.
      expect((await rest(base, '/browser/navigate', { url: `${siteUrl}/hostile/becomes-file.html` }, ws)).status).toBe(
        200,
      );
      const tilde = `~/${'../'.repeat(8)}${path.slice(1)}`;
      expect((await rest(base, '/browser/write', { selector: { css: '#later' }, text: tilde }, ws)).status).toBe(200);
      const gotTilde = await rest(
        base,
        '/browser/execute-script',
        {
          script:
            "return [document.getElementById('got').textContent, document.getElementById('later').type, document.getElementById('later').files?.length ?? 0]",
        },
        ws,
      );
      expect(gotTilde.body.result).toEqual(['', 'file', 0]);
    } finally {
      await rest(base, '/browser/end-browser', {}, ws);
    }
  });

  it('names a closed host port as closed, naming BROWSER_LOOPBACK_PORTS', async () => {
    const ws = { 'X-Workspace': `closed-${browser}` };
    const tcp = await listener();
    try {
      const refused = await rest(base, '/browser/navigate', { url: `http://127.0.0.1:${tcp.port}/` }, ws);
      expect(refused.status).toBe(502);
      expect(JSON.stringify(refused.body)).toContain("that port of the browsers' own host is closed to them");
      expect(JSON.stringify(refused.body)).toContain(`BROWSER_LOOPBACK_PORTS (now: ${sitePort})`);
      expect(tcp.connections()).toBe(0);
    } finally {
      await tcp.close();
      await rest(base, '/browser/end-browser', {}, ws);
    }
  });
});
