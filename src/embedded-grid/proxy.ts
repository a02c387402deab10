import { watch } from 'node:fs';
import { chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { PortRange } from './fence.js';
import { describePorts } from './host-addresses.js';
import { forward, tunnel } from './proxy-forward.js';

/**
 * The forward proxy every browser of the embedded Grid must use (their wrappers force it, see
 * browser-wrappers.ts). It is the fence that needs no root: it resolves each destination itself,
 * refuses any address of this host (and the cloud metadata service) unless BROWSER_LOOPBACK_PORTS
 * opens the port, and connects to the very address it checked, so a name rebound between the
 * check and the connection changes nothing (proxy-forward.ts). Bytes are streamed both ways;
 * nothing is buffered or parsed past the request line and headers.
 *
 * Each browser has an address of its own (127.x.y.z, from its wrapper's pid; same port), so the
 * proxy can tell browsers apart and cap each one: a hostile page that opens connections until
 * refused exhausts its own browser's share, never the others'.
 *
 * Hand-written (node:http and node:net): the npm proxies (proxy, proxy-chain) resolve and connect
 * inside themselves, with no hook between the lookup and the connect.
 */
export interface BrowserProxy {
  port: number;
  /** where a browser's wrapper asks for its address: it writes a file named by its pid, and waits for `<pid>.ready` */
  clientsDir: string;
  /** the browsers holding an address of their own now */
  browsers(): number;
  stop(): Promise<void>;
}

export interface BrowserProxyOptions {
  /** the range to listen in (as root, PROXY_PORTS); without it, any free loopback port */
  ports?: PortRange;
  /** the account whose wrappers write registrations (the Grid's, when the server runs as root) */
  owner?: { uid: number; gid: number };
  /** connections one browser may hold at once (CONNECTIONS_PER_BROWSER) */
  perBrowser?: number;
}

/**
 * Connections one browser may hold through the proxy at once. Chromium itself holds at most 32
 * to a proxy for pages and subresources, plus its websockets: 128 leaves a busy app room, and
 * 32 browsers at the cap fill MAX_CONNECTIONS, the whole proxy's.
 */
export const CONNECTIONS_PER_BROWSER = 128;
const MAX_CONNECTIONS = 4_096;
const HEADERS_TIMEOUT_MS = 30_000;
/** How often addresses of browsers that have ended are given back (and missed registrations found). */
const SWEEP_MS = 2_000;

/**
 * A browser's own address: 127.0.0.0/8 is all this host's on Linux, and a pid (below 2^22) is
 * unique among live processes, so no two live browsers share one and none is 127.0.0.1.
 * BROWSER_ADDRESS_SH computes the same in the wrapper, from `$sf_pid`.
 */
export function browserAddress(pid: number): string {
  return `127.${(pid >> 16) + 1}.${(pid >> 8) & 255}.${pid & 255}`;
}
export const BROWSER_ADDRESS_SH =
  'sf_addr="127.$(( (sf_pid >> 16) + 1 )).$(( (sf_pid >> 8) & 255 )).$(( sf_pid & 255 ))"';
const PID = /^[1-9][0-9]{0,6}$/;
const MAX_PID = 2 ** 22;

/**
 * Where a root Grid's proxy listens: one fixed range, opened in every Grid's nftables table. The
 * tables of all Grids on a host apply to all their browsers (one browser group), so a proxy on a
 * random port would be closed to its own browsers by any other Grid's table. 20100-20131: the
 * range the tables of earlier versions already open wherever their tests ran (the fixture sites'),
 * so a Grid of this version works beside one of those; the proxy takes a free port in it.
 */
export const PROXY_PORTS: PortRange = { from: 20100, to: 20131 };

/** One address the proxy listens on: the shared 127.0.0.1, or one browser's own. */
interface Listener {
  server: Server;
  sockets: Set<Socket>;
}

export async function startBrowserProxy(
  allowed: readonly PortRange[],
  options: BrowserProxyOptions = {},
): Promise<BrowserProxy> {
  const openPorts = describePorts(allowed);
  const perBrowser = options.perBrowser ?? CONNECTIONS_PER_BROWSER;
  let total = 0;
  const http = createHttpServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 0 }, (req, res) => {
    void forward(req, res, allowed, openPorts);
  });
  http.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    void tunnel(req, client, head, allowed, openPorts);
  });
  // WebSockets come as CONNECT tunnels from both browsers; an Upgrade sent to the proxy itself is not one.
  http.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  const listener = (): Listener => {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      if (sockets.size >= perBrowser || total >= MAX_CONNECTIONS) {
        refuse(socket, sockets.size >= perBrowser ? perBrowser : undefined);
        return;
      }
      sockets.add(socket);
      total += 1;
      socket.once('close', () => {
        sockets.delete(socket);
        total -= 1;
      });
      http.emit('connection', socket);
    });
    return { server, sockets };
  };
  const clientsDir = await mkdtemp(join(tmpdir(), 'selenium-flow-proxy-'));
  const shared = listener();
  let port: number;
  try {
    if (options.owner) {
      await chown(clientsDir, options.owner.uid, options.owner.gid);
    }
    port = options.ports ? await listenInRange(shared.server, options.ports) : await listen(shared.server, 0);
  } catch (error) {
    await rm(clientsDir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  const browsers = new Map<number, Listener & { listening: Promise<void> }>();
  const close = async (l: Listener) => {
    const closed = new Promise<void>((resolve) => l.server.close(() => resolve()));
    for (const socket of l.sockets) {
      socket.destroy();
    }
    await closed;
  };
  // A registration: listen on the browser's own address, then say so (the wrapper waits for it).
  // Both inotify events of one new file may come: the second waits on the first's listen.
  const register = async (name: string) => {
    const pid = Number(name);
    if (!PID.test(name) || pid >= MAX_PID || stopped) {
      return;
    }
    let own = browsers.get(pid);
    if (!own) {
      const fresh = listener();
      own = { ...fresh, listening: listen(fresh.server, port, browserAddress(pid)).then(() => undefined) };
      browsers.set(pid, own);
    }
    try {
      await own.listening;
    } catch (error) {
      browsers.delete(pid);
      const why = error instanceof Error ? error.message : String(error);
      await writeFile(join(clientsDir, `${pid}.failed`), `${why}\n`).catch(() => undefined);
      return;
    }
    await writeFile(join(clientsDir, `${pid}.ready`), '').catch(() => undefined);
  };
  // A browser that ended gives its address back; its connections end with it.
  const sweep = async () => {
    for (const [pid, own] of browsers) {
      if (!isAlive(pid)) {
        browsers.delete(pid);
        await close(own);
        await Promise.all(['', '.ready'].map((suffix) => rm(join(clientsDir, `${pid}${suffix}`), { force: true })));
      }
    }
    const names = await readdir(clientsDir).catch(() => []);
    await Promise.all(names.filter((n) => PID.test(n) && !browsers.has(Number(n))).map(register));
  };
  const watcher = watch(clientsDir, (_event, name) => {
    if (name !== null) {
      void register(name);
    }
  });
  watcher.on('error', () => undefined);
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
      await rm(clientsDir, { recursive: true, force: true });
    },
  };
}

/** Whether a process runs: signal 0 checks without sending (EPERM: it runs, as another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * Over a cap: an answer the browser shows (a navigation) or fails on (a CONNECT, a fetch), said
 * before any request is read; what the browser sent is read and dropped, so the close is clean.
 */
function refuse(socket: Socket, perBrowser: number | undefined): void {
  const sentence =
    perBrowser === undefined
      ? `Refused by selenium-flow's fence: its proxy holds ${MAX_CONNECTIONS} connections for all browsers, the most it may; retry when some have closed.`
      : `Refused by selenium-flow's fence: this browser already holds ${perBrowser} connections through its proxy, the most one browser may (the others keep their own); close some and retry.`;
  const body = `${sentence}\n`;
  socket.resume();
  socket.end(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function listenInRange(server: Server, range: PortRange): Promise<number> {
  const size = range.to - range.from + 1;
  // A random first port: Grids starting at once try different ones.
  const first = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i += 1) {
    try {
      return await listen(server, range.from + ((first + i) % size));
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'EADDRINUSE')) {
        throw error;
      }
    }
  }
  throw new Error(`every port from ${range.from} to ${range.to} is taken`);
}

function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}
