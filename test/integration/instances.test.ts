import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attackFromPage, countingListener, newSession, udpListener } from '../helpers/attack-page.js';
import { listeningPorts, processesBelow } from '../helpers/listening.js';
import { spawnReplica } from '../helpers/replica.js';
import { rest } from '../helpers/server.js';
import {
  ensureUnprivilegedUser,
  serveAsUnprivileged,
  unprivilegedHome,
  type UnprivilegedServer,
} from '../helpers/unprivileged.js';

// Several selenium-flow servers on one host, each with its embedded Grid (a watchable slot too),
// each opening EVERY port of the host to its browsers (BROWSER_LOOPBACK_PORTS=1024-65535): only
// who listens on a port can keep it closed. While the other holds a browser, a page of each tries
// every port both servers' processes listen on (server, proxy, Grid, drivers, DevTools, VNC): a
// new session whose binary is python3 writing a marker, and a fetch by `localhost`. No marker, no
// connection; the fixture site and a listener of this test (any other program's) still answer.
// Two as root (their Grids as selenium-flow-grid, each in its own browser group), then one of
// them beside one run as an ordinary user (no firewall, no second user: the proxy is the wall).

const siteUrl = inject('siteUrl');
const EVERY_PORT = '1024-65535';

interface Instance {
  name: string;
  url: string;
  /** the server's process: its own and its Grid's processes are it and those below it */
  pid: number;
  stop(): Promise<void>;
}

let markers: string;

beforeAll(async () => {
  markers = await mkdtemp(join(tmpdir(), 'sf-instances-'));
  // The Grids' accounts (selenium-flow-grid, sf-unprivileged) could write here, if a page reached a driver.
  await chmod(markers, 0o1777);
});

afterAll(async () => {
  await rm(markers, { recursive: true, force: true });
});

async function asRoot(name: string): Promise<Instance> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sf-instances-data-'));
  const replica = await spawnReplica({
    BROWSER_LOOPBACK_PORTS: EVERY_PORT,
    EMBEDDED_LIVE_VIEWS: '1',
    FLOW_DATA_DIR: dataDir,
  });
  return {
    name,
    url: replica.url,
    pid: replica.child.pid ?? -1,
    stop: async () => {
      await replica.kill('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function asOrdinaryUser(name: string): Promise<Instance> {
  ensureUnprivilegedUser();
  const home = await unprivilegedHome();
  const served: UnprivilegedServer = await serveAsUnprivileged(home, {
    FLOW_DATA_DIR: join(home, 'data'),
    EMBEDDED_LIVE_VIEWS: '1',
    BROWSER_LOOPBACK_PORTS: EVERY_PORT,
    LIVE_VIEW: 'off',
  });
  return {
    name,
    url: served.base,
    pid: served.pid,
    stop: async () => {
      await served.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Every port the instance's processes listen on: its server's, its proxy's, its Grid's, drivers', browsers', displays'. */
function portsOf(instance: Instance): number[] {
  return listeningPorts([instance.pid, ...processesBelow(instance.pid)]);
}

async function holdBrowser(instance: Instance, workspace: string): Promise<void> {
  const opened = await rest(instance.url, '/browser/open-session', { browser: 'chrome' }, { 'X-Workspace': workspace });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
}

/** A page of `from` tries every port of both instances; none may answer, nor run a program. */
async function attackBoth(from: Instance, other: Instance): Promise<void> {
  const workspace = `attacker-${from.name}`;
  await holdBrowser(from, workspace);
  const theirs = portsOf(other);
  const ours = portsOf(from);
  // What the test is about: the other's server, its Grid and a driver of its browser listen.
  expect(theirs.length, `${other.name} listens on ${theirs.join(', ')}`).toBeGreaterThanOrEqual(6);
  const marker = join(markers, `${from.name}-${randomBytes(6).toString('hex')}`);
  const control = await countingListener();
  const udp = await udpListener();
  const targets = [
    { name: 'the fixture site', kind: 'fetch', url: `${siteUrl}/table.html` },
    { name: 'a listener of another program', kind: 'fetch', url: `http://127.0.0.1:${control.port}/` },
    ...[...new Set([...theirs, ...ours])].flatMap((port) => [
      {
        name: `${theirs.includes(port) ? other.name : from.name}'s port ${port}, a new session`,
        kind: 'fetch',
        url: `http://127.0.0.1:${port}/session`,
        method: 'POST',
        body: newSession('chrome', marker),
      },
      { name: `port ${port} by localhost`, kind: 'fetch', url: `http://localhost:${port}/status` },
      { name: `port ${port} by websocket`, kind: 'ws', url: `ws://127.0.0.1:${port}/` },
    ]),
  ];
  try {
    const outcomes = await attackFromPage(from.url, siteUrl, workspace, targets, udp.port);
    const [site, program, ...forbidden] = outcomes;
    expect(site).toMatchObject({ reached: true });
    // Every port is open to the browsers: only an instance's own stay closed.
    expect(program).toMatchObject({ reached: true });
    expect(forbidden.filter((o) => o.reached)).toEqual([]);
    expect(forbidden).toHaveLength(targets.length - 2);
    expect(udp.packets()).toBe(0);
  } finally {
    await control.close();
    udp.close();
  }
  await expect(stat(marker)).rejects.toThrow();
}

describe.each([
  ['two servers as root', () => asRoot('a'), () => asRoot('b')],
  ['a server as root beside one as an ordinary user', () => asRoot('root'), () => asOrdinaryUser('user')],
])('%s', (_shape, first, second) => {
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    [a, b] = await Promise.all([first(), second()]);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it(
    'a page of the first reaches no port of either while the second holds a browser',
    { timeout: 120_000 },
    async () => {
      await holdBrowser(b, 'holder');
      await attackBoth(a, b);
    },
  );

  it(
    'a page of the second reaches no port of either while the first holds a browser',
    { timeout: 120_000 },
    async () => {
      await holdBrowser(a, 'holder');
      await attackBoth(b, a);
    },
  );
});
