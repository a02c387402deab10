import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { gridFetch, splitCredentials } from '../../src/grid/grid.js';
import { sessionCapabilities } from '../../src/grid/session-lookup.js';
import { visitedOf } from '../../src/live/pages.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { RfbClient } from '../helpers/rfb-client.js';
import {
  gridIdOf,
  gridSessionIds,
  openWatchable,
  rest,
  sharedGridEnv,
  startServer,
  testBrowser,
  type RunningServer,
} from '../helpers/server.js';

// Nothing a page or a browser does stops the server (docs/security.md): each provocation below,
// under Control and under network capture, ends at most that browser's part, with a sentence,
// while the server answers /health and another workspace's browser answers calls.

const ADMIN = 'failures-admin-token';
const TOKEN = 'failures-bearer-token';
const site = inject('siteUrl');
const gridUrl = inject('gridUrl');
const chromium = testBrowser() === 'chrome';
const MODES = ['capture', 'control'] as const;
/** How long a served process must live on after the tabs flickered: a negative check, so a fixed wait. */
const STILL_RUNNING_AFTER_MS = 1_000;
type Mode = (typeof MODES)[number];

let running: RunningServer;
// What escaped this process while a test ran: before, the in-process mapper's rejections did.
const escaped: unknown[] = [];
const note = (error: unknown) => escaped.push(error);

const agent = (workspace: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace });
const call = (workspace: string, tool: string, body: Record<string, unknown> = {}) =>
  rest(running.url, `/browser/${tool}`, body, agent(workspace));
const network = async (workspace: string) =>
  (await rest(running.url, '/workspace/network', undefined, agent(workspace))).body as {
    capturing: boolean;
    requests: { url: string }[];
    stopped?: string;
  };

async function control(method: 'POST' | 'DELETE', workspace: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${running.url}/admin/api/workspaces/${workspace}/control`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ who: 'Kelly' }),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** The workspaces the running test opened browsers in. */
const used: string[] = [];

/** The workspace's browser on a page, under the mode; answers its Grid id. */
async function underMode(mode: Mode, workspace: string): Promise<string> {
  used.push(workspace);
  expect((await call(workspace, 'navigate', { url: `${site}/welcome.html` })).status).toBe(200);
  if (mode === 'capture') {
    const on = await call(workspace, 'capture-network', { on: true });
    expect(on.body, JSON.stringify(on.body)).toMatchObject({ capturing: true });
  } else {
    expect(await control('POST', workspace)).toMatchObject({ state: 'held' });
  }
  const gridId = (await gridIdOf(running, workspace)) ?? '';
  expect(running.server.deps.monitoring?.monitors.state(gridId)).toEqual({ open: true, reasons: [mode] });
  return gridId;
}

/** The server still serves, and another workspace's browser still answers. */
async function othersGoOn(): Promise<void> {
  expect((await fetch(`${running.url}/health`)).status).toBe(200);
  const read = await call('bystander', 'extract', { selector: { css: 'h1' } });
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect(read.body.value).toBe('Welcome,');
}

/** After the hand-back (the person's or the browser's end), what await_control answers. */
async function handedBack(workspace: string): Promise<Record<string, unknown>> {
  await control('DELETE', workspace);
  return (await call(workspace, 'await-control')).body;
}

/** The agent starts again with a new browser, as the sentences it read tell it to. */
async function recovers(workspace: string): Promise<void> {
  expect((await call(workspace, 'open-session')).status).toBe(200);
  expect((await call(workspace, 'navigate', { url: `${site}/table.html` })).status).toBe(200);
}

/** The browser's DevTools, through the Grid, as a person's window or a test may reach them. */
async function devtools(gridId: string): Promise<{
  send(method: string, params?: object, sessionId?: string): Promise<Record<string, unknown>>;
  fire(method: string, params?: object, sessionId?: string): void;
  /** the first event `method` whose params `matches`, from now on */
  event(method: string, matches: (params: Record<string, unknown>) => boolean): Promise<void>;
  close(): void;
}> {
  const { address, authorization } = splitCredentials(gridUrl);
  const socket = new WebSocket(`${address.replace(/^http/, 'ws').replace(/\/$/, '')}/session/${gridId}/se/cdp`, {
    headers: authorization ? { authorization } : {},
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  let id = 0;
  const waiting = new Map<number, (answer: Record<string, unknown>) => void>();
  const listening = new Set<(method: string, params: Record<string, unknown>) => void>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: Record<string, unknown> };
    if (message.id !== undefined) {
      waiting.get(message.id)?.(message);
    } else if (message.method !== undefined) {
      for (const listener of listening) {
        listener(message.method, message.params ?? {});
      }
    }
  });
  const fire = (method: string, params: object = {}, sessionId?: string) => {
    id += 1;
    socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return id;
  };
  return {
    send: (method, params, sessionId) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`DevTools did not answer ${method}`)), 15_000);
        waiting.set(fire(method, params, sessionId), (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
      }),
    fire: (method, params, sessionId) => void fire(method, params, sessionId),
    event: (method, matches) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listening.delete(listener);
          reject(new Error(`DevTools never sent ${method}`));
        }, 15_000);
        const listener = (heard: string, params: Record<string, unknown>) => {
          if (heard === method && matches(params)) {
            clearTimeout(timer);
            listening.delete(listener);
            resolve();
          }
        };
        listening.add(listener);
      }),
    close: () => socket.close(),
  };
}

/**
 * Tabs that come and go under the mapper: each is created and its context disposed in one
 * write, so the tab is gone before the mapper's Target.setAutoAttach to it can be answered —
 * what Chromium's own address bar does each time a person types an address in it.
 */
async function flickerTabs(gridId: string): Promise<void> {
  const cdp = await devtools(gridId);
  try {
    for (let i = 0; i < 5; i += 1) {
      const context = await cdp.send('Target.createBrowserContext');
      const browserContextId = (context.result as { browserContextId: string }).browserContextId;
      const made = cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
      await cdp.send('Target.disposeBrowserContext', { browserContextId });
      await made;
    }
  } finally {
    cdp.close();
  }
}

/** The page's tab as a person would take it to an address (the test's stand-in for the address bar). */
async function personGoesTo(gridId: string, url: string): Promise<void> {
  const cdp = await devtools(gridId);
  try {
    const { targetInfos } = (await cdp.send('Target.getTargets')).result as {
      targetInfos: { targetId: string; type: string; url: string }[];
    };
    // The page the agent opened: a headed Chromium's own window has pages of its own (its omnibox's).
    const page = targetInfos.find((target) => target.type === 'page' && target.url.startsWith(site));
    const attached = await cdp.send('Target.attachToTarget', { targetId: page?.targetId, flatten: true });
    const sessionId = (attached.result as { sessionId: string }).sessionId;
    await cdp.send('Page.navigate', { url }, sessionId);
  } finally {
    cdp.close();
  }
}

/** The renderer of the browser's page crashes (Chromium shows its "Aw, Snap!"). */
async function crashRenderer(gridId: string): Promise<void> {
  const cdp = await devtools(gridId);
  try {
    const { targetInfos } = (await cdp.send('Target.getTargets')).result as {
      targetInfos: { targetId: string; type: string; url: string }[];
    };
    // The page the agent opened: a headed Chromium's own window has pages of its own (its omnibox's).
    const page = targetInfos.find((target) => target.type === 'page' && target.url.startsWith(site));
    const attached = await cdp.send('Target.attachToTarget', { targetId: page?.targetId, flatten: true });
    // Target.targetCrashed comes only to a connection that discovers targets.
    await cdp.send('Target.setDiscoverTargets', { discover: true });
    const crashed = cdp.event('Target.targetCrashed', (params) => params.targetId === page?.targetId);
    // Never answered: the renderer is gone.
    cdp.fire('Page.crash', {}, (attached.result as { sessionId: string }).sessionId);
    await crashed;
  } finally {
    cdp.close();
  }
}

/**
 * The browser's own process, killed: found by its profile directory (Chromium's user-data-dir,
 * Firefox's `-profile`) among the processes of its binary, not the launcher or sandbox around it.
 */
async function killBrowser(gridId: string): Promise<void> {
  const capabilities = await sessionCapabilities(gridUrl, gridId);
  const profile = chromium
    ? (capabilities?.chrome as { userDataDir?: string } | undefined)?.userDataDir
    : capabilities?.['moz:profile'];
  expect(profile, 'the browser profile directory').toBeTypeOf('string');
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,args=']);
  const main = stdout.split('\n').find((row) => {
    const [, command = '', ...args] = row.trim().split(/\s+/);
    return (
      /\/(chromium|firefox-esr|firefox)$/.test(command) &&
      args.some((arg) => arg === String(profile) || arg === `--user-data-dir=${String(profile)}`) &&
      !args.some((arg) => arg.startsWith('--type=') || arg === '-contentproc')
    );
  });
  const pid = Number(main?.trim().split(/\s+/)[0]);
  expect(pid, 'the browser process').toBeGreaterThan(1);
  process.kill(pid, 'SIGKILL');
}

/** The new Grid session (not in `before`) whose page is `url`. */
async function gridIdShowing(before: Set<string>, url: string): Promise<string | undefined> {
  for (const id of await gridSessionIds()) {
    if (before.has(id)) {
      continue;
    }
    const shown = await gridFetch(`${gridUrl}/session/${id}/url`, { method: 'GET' })
      .then((response) => response.json() as Promise<{ value?: unknown }>)
      .catch(() => undefined);
    if (shown?.value === url) {
      return id;
    }
  }
  return undefined;
}

beforeAll(async () => {
  process.on('unhandledRejection', note);
  process.on('uncaughtException', note);
  running = await startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN });
  expect((await call('bystander', 'navigate', { url: `${site}/welcome.html` })).status).toBe(200);
}, 120_000);

afterEach(async () => {
  expect(escaped.splice(0), 'errors that escaped the server').toEqual([]);
  // Each test's browser goes with it: the shared Grid's slots, and a caller's share of them, are few.
  for (const workspace of used.splice(0)) {
    await control('DELETE', workspace).catch(() => undefined);
    await call(workspace, 'end-browser').catch(() => undefined);
  }
});

afterAll(async () => {
  await call('bystander', 'end-browser').catch(() => undefined);
  await running?.close();
  process.off('unhandledRejection', note);
  process.off('uncaughtException', note);
});

describe.each(MODES)('under %s', (mode) => {
  it.skipIf(!chromium)(
    'a tab that comes and goes under the mapper leaves the server, and the monitor, going on',
    async () => {
      const workspace = `flicker-${mode}`;
      const gridId = await underMode(mode, workspace);
      await flickerTabs(gridId);
      await othersGoOn();
      // The mapper went on without those tabs: the monitor still holds, and still hears.
      expect(running.server.deps.monitoring?.monitors.state(gridId)).toEqual({ open: true, reasons: [mode] });
      if (mode === 'capture') {
        expect((await call(workspace, 'navigate', { url: `${site}/table.html` })).status).toBe(200);
        await expect
          .poll(async () => (await network(workspace)).requests.some((r) => r.url.endsWith('/table.html')))
          .toBe(true);
        expect(await network(workspace)).toMatchObject({ capturing: true });
      } else {
        await personGoesTo(gridId, `${site}/table.html`);
        // Listed once its load is heard, with its title: then the person hands back.
        await expect
          .poll(async () => (await visitedOf(running.server.liveView.store, workspace)).pages, { timeout: 10_000 })
          .toEqual([{ url: `${site}/table.html`, title: 'Data table' }]);
        const back = await handedBack(workspace);
        expect(back.visited).toEqual([{ url: `${site}/table.html`, title: 'Data table' }]);
        expect(back.visited_stopped).toBeUndefined();
      }
    },
  );

  it.skipIf(!chromium)('a crashed renderer is said to the agent, who starts again with open_session', async () => {
    const workspace = `crash-${mode}`;
    const gridId = await underMode(mode, workspace);
    await crashRenderer(gridId);
    await othersGoOn();
    if (mode === 'control') {
      expect(await handedBack(workspace)).toMatchObject({ handed_back: true, who: 'Kelly' });
    }
    const read = await call(workspace, 'navigate', { url: `${site}/table.html` });
    expect(read.status).toBe(503);
    expect(JSON.stringify(read.body)).toContain('its tab crashed');
    expect(JSON.stringify(read.body)).toContain('call open_session');
    await recovers(workspace);
    if (mode === 'capture') {
      expect((await network(workspace)).stopped).toMatch(
        /^Capture stopped at \d\d:\d\d UTC: the browser it captured ended\./,
      );
    }
    await othersGoOn();
  });

  it('a killed browser is said to the agent, its monitor ends, and open_session starts again', async () => {
    const workspace = `kill-${mode}`;
    const gridId = await underMode(mode, workspace);
    await killBrowser(gridId);
    await othersGoOn();
    // A read finds it gone (a person's Control does not stop reads): chromedriver says the
    // session is gone, geckodriver first that Firefox stopped answering.
    const read = await call(workspace, 'extract');
    expect([404, 503], JSON.stringify(read.body)).toContain(read.status);
    expect(JSON.stringify(read.body)).toMatch(/The browser has ended|The browser stopped answering/);
    expect(JSON.stringify(read.body)).toContain('call open_session');
    if (mode === 'control') {
      const back = await handedBack(workspace);
      expect(back).toMatchObject({ handed_back: true, ended: true });
      expect(back.message).toBe('the browser ended while Kelly had control: call open_session.');
    }
    await recovers(workspace);
    await expect
      .poll(() => running.server.deps.monitoring?.monitors.state(gridId))
      .toEqual({ open: false, reasons: [] });
    if (mode === 'capture') {
      const listed = await network(workspace);
      expect(listed.capturing).toBe(false);
      expect(listed.stopped).toMatch(/^Capture stopped at \d\d:\d\d UTC: the browser it captured ended\./);
    }
    await othersGoOn();
  });
});

describe('a site the browsers reach through the fence', () => {
  let hostile: Server;
  let hostileUrl: string;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // Only the fixture ports of this host are open to the browsers: a raw site listens on one.
    hostile = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end('HTTP/1.1 000 Nothing\r\nContent-Length: 0\r\n\r\n'));
    });
    for (let port = FIXTURE_PORTS.to; port >= FIXTURE_PORTS.from && !hostileUrl; port -= 1) {
      hostileUrl = await new Promise<string>((resolve) => {
        hostile.once('error', () => resolve(''));
        hostile.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${port}`));
      });
    }
    expect(hostileUrl).not.toBe('');
  });

  afterAll(async () => {
    // A browser may keep its end of a connection open after the answer: close would wait for it.
    for (const socket of sockets) {
      socket.destroy();
    }
    await new Promise((resolve) => hostile.close(resolve));
  });

  it('answering a status line no browser takes is a 502 for that page, not the end of the server', async () => {
    // The fence's proxy runs in the process that owns the Grid (here, the tests' own): before,
    // this answer threw out of it and stopped that process, and every browser's fence with it.
    used.push('hostile');
    const went = await call('hostile', 'navigate', { url: `${hostileUrl}/` });
    expect(went.status).toBe(502);
    expect(JSON.stringify(went.body)).toContain('the site answered with what is not valid HTTP');
    await othersGoOn();
    expect((await call('hostile', 'navigate', { url: `${site}/table.html` })).status).toBe(200);
  });
});

describe.skipIf(!chromium)('selenium-flow serve', () => {
  it('stays up while a tab comes and goes under the mapper of a browser it captures', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--log-level', 'info'],
      {
        env: { ...(process.env as Record<string, string>), ...sharedGridEnv(), SE_OFFLINE: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let gridId: string | undefined;
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const find = () => {
          const match = /MCP:\s+(http:\/\/[^/\s]+)\/mcp/.exec(output.join(''));
          if (match?.[1]) {
            resolve(match[1]);
          }
        };
        child.stdout.on('data', find);
        void exited.then(() => reject(new Error(`the server exited before serving:\n${output.join('')}`)));
      });
      const before = await gridSessionIds();
      const served = { 'x-workspace': 'served' };
      // An address no other file's browser shows: the server's handle is no Grid id.
      const page = `${site}/welcome.html?served=${Date.now()}`;
      expect((await rest(base, '/browser/navigate', { url: page }, served)).status).toBe(200);
      gridId = await gridIdShowing(before, page);
      expect(gridId, 'the browser the server opened, found on the Grid').toBeDefined();
      expect((await rest(base, '/browser/capture-network', { on: true }, served)).status).toBe(200);
      await flickerTabs(gridId ?? '');
      // Nothing says a rejection the mapper left unawaited is not coming: a while for it to end the process.
      await new Promise((resolve) => setTimeout(resolve, STILL_RUNNING_AFTER_MS));
      const still = await Promise.race([exited.then((code) => `exited with ${code}`), Promise.resolve('running')]);
      expect(still, output.join('')).toBe('running');
      expect((await fetch(`${base}/health`)).status).toBe(200);
      expect((await rest(base, '/workspace/network', undefined, served)).body).toMatchObject({ capturing: true });
      expect((await rest(base, '/browser/end-browser', {}, served)).status).toBe(200);
      gridId = undefined;
      // No line it wrote names the browser's Grid id or the page.
      expect(output.join('')).not.toContain('welcome.html');
    } finally {
      child.kill('SIGKILL');
      if (gridId) {
        await gridFetch(`${gridUrl}/session/${gridId}`, { method: 'DELETE' }).catch(() => undefined);
      }
    }
  });
});

describe.skipIf(!chromium)('a viewer of a browser that ends under Control', () => {
  it('is closed with the reason once the server learns the browser is gone', async () => {
    const own = await startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN, LIVE_VIEW: 'prefer' });
    const watched = { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'watched-failure' };
    try {
      await openWatchable(own, 'watched-failure', watched, {
        first: { path: '/browser/navigate', body: { url: `${site}/welcome.html` } },
      });
      const gridId = (await gridIdOf(own, 'watched-failure')) ?? '';
      const minted = await rest(
        own.url,
        '/admin/api/workspaces/watched-failure/live-ticket',
        { who: 'Kelly' },
        { authorization: `Bearer ${ADMIN}` },
      );
      const viewer = await RfbClient.open(own.url.replace(/^http/, 'ws') + String(minted.body.path));
      await viewer.handshake();
      const taken = await rest(
        own.url,
        '/admin/api/workspaces/watched-failure/control',
        { who: 'Kelly', viewer: minted.body.viewer },
        { authorization: `Bearer ${ADMIN}` },
      );
      expect(taken.body.state).toBe('held');
      await killBrowser(gridId);
      // Its display stays up, empty: the Grid closes no VNC websocket. The next call finds the browser gone.
      expect((await rest(own.url, '/browser/extract', {}, watched)).status).toBe(404);
      expect(
        await Promise.race([viewer.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000))]),
      ).toEqual({ code: 1011, reason: "This workspace's browser ended; reconnect to watch the next one." });
      expect((await fetch(`${own.url}/health`)).status).toBe(200);
    } finally {
      await rest(own.url, '/browser/end-browser', {}, watched).catch(() => undefined);
      await own.close();
    }
  });
});
