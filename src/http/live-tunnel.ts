import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { BadRequest, errorBody, NotFound, Unauthorized } from '../errors.js';
import { webSocketServer } from '../lazy.js';
import { Tunnel } from '../live/tunnel/tunnel.js';
import type { LiveService } from '../live/service.js';
import { isWorkspaceName } from '../workspace/names.js';
import type { RequestGuard } from './guard.js';

const PATH = /^\/admin\/live\/([^/?]+)$/;

/**
 * The live view's websocket, `/admin/live/<workspace>?ticket=…`: Fastify serves no upgrades,
 * so the HTTP server's `upgrade` event comes here. Host and Origin are checked like every
 * route's; then the ticket (single-use, 30 s, minted with the admin token) stands in for the
 * token a browser's websocket cannot send. Any other upgrade is refused.
 */
export function attachLiveTunnel(
  server: { on(event: 'upgrade', listener: (request: IncomingMessage, socket: Duplex, head: Buffer) => void): void },
  options: { live: LiveService; guard: RequestGuard; routePrefix?: string },
): void {
  // Built at the first viewer: a server nobody watches never loads ws (src/lazy.ts).
  let sockets: WebSocketServer | undefined;
  const viewerSockets = () =>
    (sockets ??= new (webSocketServer())({
      noServer: true,
      perMessageDeflate: false,
      maxPayload: 4 * 1024 * 1024,
    }));
  server.on('upgrade', (request, socket, head) => {
    socket.on('error', () => socket.destroy());
    void upgrade(request, socket, head).catch((error: unknown) => refuse(socket, error));
  });

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://upgrade.invalid');
    const prefix = options.routePrefix ?? '';
    const match = url.pathname.startsWith(prefix) ? PATH.exec(url.pathname.slice(prefix.length)) : null;
    if (!match) {
      throw new NotFound(`No websocket at ${url.pathname.slice(0, 100)}; the live view is at /admin/live/<workspace>.`);
    }
    // The Host always; the Origin below, once the ticket says whose it is.
    const { origin, ...rest } = request.headers;
    options.guard.check({ headers: rest, socket: request.socket }, false);
    const workspace = decodeURIComponent(match[1] ?? '');
    if (!isWorkspaceName(workspace)) {
      throw new BadRequest('The live view needs a valid workspace name in its path: /admin/live/<workspace>.');
    }
    const ticket = await options.live.tickets.take(url.searchParams.get('ticket') ?? '');
    if (!ticket || ticket.workspace !== workspace) {
      throw new Unauthorized(
        'Missing, used or expired live-view ticket; mint one with POST /admin/api/workspaces/{workspace}/live-ticket (admin token) and connect within 30 s.',
      );
    }
    if (!ticket.app) {
      options.guard.check({ headers: { ...request.headers, origin }, socket: request.socket }, false);
    }
    const vnc = await options.live.vncOf(workspace);
    viewerSockets().handleUpgrade(request, socket, head, (viewer) => {
      const tunnel = new Tunnel(
        workspace,
        ticket.who,
        viewer,
        options.live.tunnelOptions(workspace, ticket.viewer, vnc.gridId),
      );
      options.live.tunnels.add(tunnel);
      // Closing the tab withdraws: a person who left holds nothing.
      tunnel.onEnded(
        () => void options.live.controls.withdraw(workspace, undefined, ticket.viewer).catch(() => undefined),
      );
      tunnel.connect(vnc.url, vnc.authorization);
    });
  }
}

/** An HTTP answer on the raw socket, in the error shape every route uses, then the socket ends. */
function refuse(socket: Duplex, error: unknown): void {
  const answer = errorBody(error);
  const body = JSON.stringify(answer.body);
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${answer.status} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  // end() flushes the answer first; a client that never reads it is cut off.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
