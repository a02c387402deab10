import type WebSocket from 'ws';
import { webSocket } from '../lazy.js';

/** Close codes a viewer sees, each with a reason it can show. */
export const CLOSE = {
  normal: 1000,
  /** the Grid's VNC went away or never answered */
  upstream: 1011,
  /** the server is stopping: reconnect in a moment */
  restart: 1012,
} as const;

/**
 * One viewer's websocket piped to its browser's VNC websocket on the Grid, bytes both ways.
 * Every way it can end — the viewer leaves, the Grid's side drops or never opens, the server
 * stops, close() called twice or while the Grid's side still connects — goes through close(),
 * which ends both sockets exactly once.
 */
export class Tunnel {
  private upstream: WebSocket | undefined;
  private ended = false;
  private readonly pending: Buffer[] = [];
  private readonly endedListeners: (() => void)[] = [];

  constructor(
    readonly workspace: string,
    readonly who: string,
    private readonly viewer: WebSocket,
  ) {
    viewer.on('message', (data: Buffer) => this.fromViewer(data));
    viewer.on('close', () => this.close(CLOSE.normal, ''));
    viewer.on('error', () => this.close(CLOSE.normal, ''));
  }

  /** Dials the Grid's VNC proxy; no subprotocol (the Grid echoes none, and a client asking one fails). */
  connect(url: string, authorization: string | undefined): void {
    if (this.ended) {
      return;
    }
    const upstream = new (webSocket())(url, {
      headers: authorization ? { authorization } : {},
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    this.upstream = upstream;
    upstream.on('open', () => {
      for (const chunk of this.pending.splice(0)) {
        upstream.send(chunk);
      }
    });
    upstream.on('message', (data: Buffer) => {
      if (this.viewer.readyState === webSocket().OPEN) {
        this.viewer.send(data);
      }
    });
    const lost = () => this.close(CLOSE.upstream, "The browser's VNC connection ended; reconnect to watch again.");
    upstream.on('close', lost);
    upstream.on('error', lost);
    upstream.on('unexpected-response', (request) => {
      request.destroy();
      lost();
    });
  }

  get open(): boolean {
    return !this.ended;
  }

  onEnded(listener: () => void): void {
    if (this.ended) {
      listener();
    } else {
      this.endedListeners.push(listener);
    }
  }

  /** Ends both sockets, once; later calls do nothing. */
  close(code: number, reason: string): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.pending.length = 0;
    const upstream = this.upstream;
    if (upstream && upstream.readyState !== webSocket().CLOSED) {
      // terminate(): no closing handshake to wait for, and it aborts a handshake still under way.
      upstream.terminate();
    }
    if (this.viewer.readyState === webSocket().OPEN || this.viewer.readyState === webSocket().CONNECTING) {
      this.viewer.close(code, reason.slice(0, 120));
      // A viewer that never answers the close is cut off.
      setTimeout(() => this.viewer.terminate(), 2_000).unref();
    }
    for (const listener of this.endedListeners.splice(0)) {
      listener();
    }
  }

  private fromViewer(data: Buffer): void {
    const upstream = this.upstream;
    if (upstream?.readyState === webSocket().OPEN) {
      upstream.send(data);
    } else if (!this.ended && this.pending.length < 64) {
      this.pending.push(data);
    }
  }
}

/** Every tunnel this server holds open, so a shutdown can tell each viewer why it ends. */
export class Tunnels {
  private readonly open = new Set<Tunnel>();

  add(tunnel: Tunnel): void {
    this.open.add(tunnel);
    tunnel.onEnded(() => this.open.delete(tunnel));
  }

  of(workspace: string): Tunnel[] {
    return [...this.open].filter((t) => t.workspace === workspace);
  }

  get size(): number {
    return this.open.size;
  }

  closeAll(code: number, reason: string): void {
    for (const tunnel of [...this.open]) {
      tunnel.close(code, reason);
    }
  }
}
