import { watch, type FSWatcher } from 'node:fs';
import { mkdtemp, readdir, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PortRange } from './fence.js';
import { describePorts, refusal } from './host-addresses.js';
import { instanceRefusal } from './listeners.js';
import type { Fence } from './proxy-forward.js';
import { NameResolver, type NameOptions } from './proxy-names.js';
import {
  ANSWERS,
  answer,
  browserAddress,
  isAlive,
  MAX_PID,
  PID,
  registrationDirs,
  removeRegistrations,
  REQUESTS,
} from './proxy-registrations.js';
import { closeAll, ConnectionGate, CONNECTIONS_PER_BROWSER, fenceHttp, listen } from './proxy-server.js';

export { CONNECTIONS_PER_BROWSER } from './proxy-server.js';

/**
 * The forward proxy every browser of the embedded Grid must use (their wrappers force it, see
 * browser-wrappers.ts). It is the fence that needs no root: it resolves each destination itself,
 * refuses any address of this host (and the cloud metadata service) unless BROWSER_LOOPBACK_PORTS
 * opens the port and no selenium-flow instance holds it (listeners.ts), and connects to the very address it checked, so a name rebound between the
 * check and the connection changes nothing (proxy-forward.ts). Bytes are streamed both ways;
 * nothing is buffered or parsed past the request line and headers.
 *
 * Each browser has an address of its own (127.x.y.z, from its wrapper's pid; same port), so the
 * proxy can tell browsers apart and cap each one: a hostile page that opens connections, or
 * waits on name lookups, until refused exhausts its own browser's share, never the others'.
 *
 * Hand-written (node:http and node:net): the npm proxies (proxy, proxy-chain) resolve and connect
 * inside themselves, with no hook between the lookup and the connect.
 */
export interface BrowserProxy {
  port: number;
  /**
   * where a browser's wrapper asks for its address: it writes `requests/<pid>` (REQUESTS, the
   * wrappers' own directory) and waits for `answers/<pid>.ready` (ANSWERS, the proxy's alone)
   */
  clientsDir: string;
  /** the browsers holding an address of their own now */
  browsers(): number;
  stop(): Promise<void>;
}

export interface BrowserProxyOptions {
  /** the account whose wrappers write registrations (the Grid's, when the server runs as root) */
  owner?: { uid: number; gid: number };
  /** connections one browser may hold at once (CONNECTIONS_PER_BROWSER) */
  perBrowser?: number;
  /** how names are resolved: DNS servers, hosts file, lookups per browser (proxy-names.ts) */
  names?: NameOptions;
}

/** How often addresses of browsers that have ended are given back (and missed registrations found). */
const SWEEP_MS = 2_000;

/** What the browsers' proxy lets through: the open loopback ports, names as the host resolves them. */
function browsersFence(allowed: readonly PortRange[], options: BrowserProxyOptions): Fence {
  const openPorts = describePorts(allowed);
  return {
    refusal: (address, port) => refusal(address, port, allowed),
    remedy: `Only the ports in BROWSER_LOOPBACK_PORTS (now: ${openPorts}) of the host that runs the browsers are open to them.`,
    openPorts,
    names: new NameResolver(options.names),
    instances: instanceRefusal,
    // Which browser asks: the address of its own it reached the proxy at.
    clientOf: (socket) => socket.localAddress ?? '',
  };
}

/** The directory browsers register in, and the shared address the proxy listens on (its port is every browser's). */
async function openRegistrations(
  server: Server,
  owner: BrowserProxyOptions['owner'],
): Promise<{ clientsDir: string; requests: string; answers: string; port: number }> {
  const clientsDir = await mkdtemp(join(tmpdir(), 'selenium-flow-proxy-'));
  try {
    await registrationDirs(clientsDir, owner);
    const port = await listen(server, 0);
    return { clientsDir, requests: join(clientsDir, REQUESTS), answers: join(clientsDir, ANSWERS), port };
  } catch (error) {
    await removeRegistrations(clientsDir);
    throw error;
  }
}

/** Refusals (and answers) whose process ended without a browser of its own. */
async function endedAnswers(answers: string, browsers: ReadonlyMap<number, unknown>): Promise<number[]> {
  const answered = await readdir(answers).catch(() => []);
  const ended = answered
    .map((n) => Number(/^(\d+)\.(?:ready|failed)$/.exec(n)?.[1]))
    .filter((pid) => pid > 0 && !browsers.has(pid) && !isAlive(pid));
  return [...new Set(ended)];
}

/** Each new registration file, as inotify tells it (a sweep finds any it missed). */
function watchRegistrations(requests: string, register: (name: string) => Promise<void>): FSWatcher {
  const watcher = watch(requests, (_event, name) => {
    if (name !== null) {
      void register(name);
    }
  });
  watcher.on('error', () => undefined);
  return watcher;
}

/** A browser's registration and its answers, gone once its process is. */
async function forgetRegistration(requests: string, answers: string, pid: number): Promise<void> {
  await Promise.all(
    [join(requests, String(pid)), join(answers, `${pid}.ready`), join(answers, `${pid}.failed`)].map((path) =>
      unlink(path).catch(() => undefined),
    ),
  );
}

/** One address the proxy listens on: the shared 127.0.0.1, or one browser's own. */
interface Listener {
  server: Server;
  sockets: Set<Socket>;
}

export async function startBrowserProxy(
  allowed: readonly PortRange[],
  options: BrowserProxyOptions = {},
): Promise<BrowserProxy> {
  const gate = new ConnectionGate(
    fenceHttp(browsersFence(allowed, options)),
    options.perBrowser ?? CONNECTIONS_PER_BROWSER,
  );
  const listener = (): Listener => {
    const sockets = new Set<Socket>();
    return { server: createServer((socket) => gate.admit(socket, sockets)), sockets };
  };
  const shared = listener();
  const { clientsDir, requests, answers, port } = await openRegistrations(shared.server, options.owner);
  let stopped = false;
  const browsers = new Map<number, Listener & { listening: Promise<void> }>();
  const close = (l: Listener) => closeAll(l.server, l.sockets);
  // A registration: listen on the browser's own address, then say so (the wrapper waits for it).
  // Both inotify events of one new file may come: the second waits on the first's listen.
  const register = async (name: string) => {
    const pid = Number(name);
    if (!PID.test(name) || pid >= MAX_PID || stopped) {
      return;
    }
    let own = browsers.get(pid);
    if (!own && !isAlive(pid)) {
      await unlink(join(requests, name)).catch(() => undefined);
      return;
    }
    if (!own) {
      // An answer left by an ended process of the same pid would end this wrapper's wait.
      await unlink(join(answers, `${pid}.failed`)).catch(() => undefined);
      const fresh = listener();
      own = { ...fresh, listening: listen(fresh.server, port, browserAddress(pid)).then(() => undefined) };
      browsers.set(pid, own);
    }
    try {
      await own.listening;
    } catch (error) {
      browsers.delete(pid);
      const why = error instanceof Error ? error.message : String(error);
      await answer(join(answers, `${pid}.failed`), `${why}\n`);
      return;
    }
    await answer(join(answers, `${pid}.ready`), '');
  };
  // A browser that ended gives its address back; its connections end with it.
  const sweep = async () => {
    for (const [pid, own] of browsers) {
      if (!isAlive(pid)) {
        browsers.delete(pid);
        await close(own);
        await forget(pid);
      }
    }
    const asked = await readdir(requests).catch(() => []);
    await Promise.all(asked.filter((n) => PID.test(n) && !browsers.has(Number(n))).map(register));
    await Promise.all((await endedAnswers(answers, browsers)).map(forget));
  };
  const forget = (pid: number) => forgetRegistration(requests, answers, pid);
  const watcher = watchRegistrations(requests, register);
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
  return {
    port,
    clientsDir,
    browsers: () => browsers.size,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      watcher.close();
      await Promise.all([shared, ...browsers.values()].map(close));
      browsers.clear();
      await removeRegistrations(clientsDir);
    },
  };
}
