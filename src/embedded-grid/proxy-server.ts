import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { forward, tunnel, type Fence } from './proxy-forward.js';

/*
 * What both fences' proxies share (proxy.ts, the embedded Grid's; grid-fence.ts, another Grid's):
 * the HTTP server that judges and forwards each request, and the caps on connections.
 */

/**
 * Connections one browser may hold through the proxy at once. Chromium itself holds at most 32
 * to a proxy for pages and subresources, plus its websockets: 128 leaves a busy app room, and
 * 32 browsers at the cap fill MAX_CONNECTIONS, the whole proxy's.
 */
export const CONNECTIONS_PER_BROWSER = 128;
export const MAX_CONNECTIONS = 4_096;
const HEADERS_TIMEOUT_MS = 30_000;

/** The server that reads a browser's request line and headers, then forwards or tunnels it past the fence. */
export function fenceHttp(fence: Fence): HttpServer {
  const http = createHttpServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 0 }, (req, res) => {
    // Whatever one request meets ends that request, never the server the proxy runs in.
    void forward(req, res, fence).catch(() => res.destroy());
  });
  http.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    void tunnel(req, client, head, fence).catch(() => client.destroy());
  });
  // WebSockets come as CONNECT tunnels from both browsers; an Upgrade sent to the proxy itself is not one.
  http.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  return http;
}

/** Counts the connections of each browser (`held`, its own set) and of the whole proxy, and refuses past either cap. */
export class ConnectionGate {
  private total = 0;

  constructor(
    private readonly http: HttpServer,
    readonly perBrowser = CONNECTIONS_PER_BROWSER,
  ) {}

  /** Hands `socket` to the HTTP server, counted in `held` (at most `limit`); or answers the refusal and closes it. */
  admit(socket: Socket, held: Set<Socket>, limit = this.perBrowser, onClose?: () => void): void {
    socket.on('error', () => socket.destroy());
    if (held.size >= limit || this.total >= MAX_CONNECTIONS) {
      refuse(socket, held.size >= limit ? limit : undefined);
      return;
    }
    held.add(socket);
    this.total += 1;
    socket.once('close', () => {
      held.delete(socket);
      this.total -= 1;
      onClose?.();
    });
    this.http.emit('connection', socket);
  }
}

/**
 * Over a cap: an answer the browser shows (a navigation) or fails on (a CONNECT, a fetch), said
 * before any request is read; what the browser sent is read and dropped, so the close is clean.
 */
export function refuse(socket: Socket, perBrowser: number | undefined, sentence?: string): void {
  const said =
    sentence ??
    (perBrowser === undefined
      ? `Refused by selenium-flow's fence: its proxy holds ${MAX_CONNECTIONS} connections for all browsers, the most it may; retry when some have closed.`
      : `Refused by selenium-flow's fence: this browser already holds ${perBrowser} connections through its proxy, the most one browser may (the others keep their own); close some and retry.`);
  const body = `${said}\n`;
  const status = sentence === undefined ? '429 Too Many Requests' : '403 Forbidden';
  socket.resume();
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

/** Closes a listener and every connection it still holds. */
export async function closeAll(server: Server, sockets: Iterable<Socket>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) {
    socket.destroy();
  }
  await closed;
}
