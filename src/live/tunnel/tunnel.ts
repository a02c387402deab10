import type WebSocket from 'ws';
import { webSocket } from '../../lazy.js';
import { ByteQueue, CLIENT, CLOSE, filteredSetEncodings, MAX_CUT_TEXT, MAX_ENCODINGS, TunnelEnd } from './rfb.js';
import { greetUpstream, greetViewer } from './rfb-handshake.js';
import { ControlledInput } from './controlled-input.js';

export { CLOSE } from './rfb.js';

/** What a tunnel needs beside its two sockets. */
export interface TunnelOptions {
  /** the viewer's id (its ticket's): Control held by this id lets its input through */
  viewer: string;
  /**
   * Whether this viewer holds Control now; asked for every input message, so it must be cheap
   * (a cache, not a store read per mouse move).
   */
  holdsControl: () => boolean | Promise<boolean>;
  /** the nodes' VNC password (GRID_VNC_PASSWORD), for a VNC server that asks one */
  password?: string;
  /**
   * Whether the browser the tunnel shows is still the workspace's and still runs, asked every
   * `watchMs`: the Grid closes no VNC websocket when its session ends, so a viewer would watch
   * an empty display forever. A question that fails keeps the tunnel.
   */
  stillShows?: () => Promise<boolean>;
  watchMs?: number;
  /** how long each step may take; tests shorten them */
  deadlines?: Partial<Deadlines>;
}

export interface Deadlines {
  /** the Grid accepts the websocket upgrade */
  openMs: number;
  /** the VNC server's version line arrives once the websocket is open */
  greetingMs: number;
  /** the rest of the VNC handshake, upstream then the viewer's */
  handshakeMs: number;
}

const DEADLINES: Deadlines = { openMs: 5_000, greetingMs: 5_000, handshakeMs: 10_000 };

/** The most unread viewer bytes held while an input message waits for the Control answer. */
const VIEWER_BACKLOG = MAX_CUT_TEXT + 64 * 1024;
/** The most bytes of the VNC server held during the handshake (a ServerInit is well under it). */
const UPSTREAM_BACKLOG = 64 * 1024;
const ENDED = "The browser's VNC connection ended; reconnect to watch again.";
const BROWSER_ENDED = "This workspace's browser ended; reconnect to watch the next one.";
const WATCH_MS = 5_000;

/**
 * One viewer's websocket to its browser's VNC websocket on the Grid, speaking RFB on both
 * sides: the tunnel is the VNC server's client (it answers a password itself) and the viewer's
 * VNC server (security None). After the handshakes the server's bytes go to the viewer as they
 * come; the viewer's are read message by message, and input (keys, pointer, clipboard) goes on
 * only while this viewer holds Control — Watch is enforced here, not in the page.
 *
 * Every way it can end — the viewer leaves, the Grid refuses or drops, the VNC server never
 * greets, the server stops, close() called twice or while the Grid's side still connects — goes
 * through close(), which ends both sockets exactly once, with a reason.
 */
export class Tunnel {
  private upstream: WebSocket | undefined;
  private ended = false;
  /** the handshakes are done: the server's bytes go straight to the viewer */
  private piping = false;
  private readonly fromViewer: ByteQueue;
  private readonly fromUpstream: ByteQueue;
  private readonly deadlines: Deadlines;
  private readonly timers = new Set<NodeJS.Timeout>();
  private watch: NodeJS.Timeout | undefined;
  private readonly endedListeners: (() => void)[] = [];
  private readonly input: ControlledInput;

  constructor(
    readonly workspace: string,
    readonly who: string,
    private readonly viewer: WebSocket,
    private readonly options: TunnelOptions,
  ) {
    this.deadlines = { ...DEADLINES, ...options.deadlines };
    this.fromViewer = new ByteQueue(
      VIEWER_BACKLOG,
      () => new TunnelEnd(CLOSE.refused, 'The viewer sent more than the live view holds; reconnect.'),
    );
    this.fromUpstream = new ByteQueue(UPSTREAM_BACKLOG, () => new TunnelEnd(CLOSE.upstream, ENDED));
    this.input = new ControlledInput(options.holdsControl, (bytes) => this.toUpstream(bytes));
    viewer.on('message', (data: Buffer) => this.fromViewer.push(data));
    viewer.on('close', () => this.close(CLOSE.normal, ''));
    viewer.on('error', () => this.close(CLOSE.normal, ''));
    const stillShows = options.stillShows;
    if (stillShows) {
      this.watch = setInterval(() => {
        void stillShows().then(
          (shows) => {
            if (!shows) {
              this.close(CLOSE.upstream, BROWSER_ENDED);
            }
          },
          () => undefined,
        );
      }, options.watchMs ?? WATCH_MS);
      this.watch.unref();
    }
  }

  /** Dials the Grid's VNC proxy; no subprotocol (the Grid echoes none, and a client asking one fails). */
  connect(url: string, authorization: string | undefined): void {
    if (this.ended) {
      return;
    }
    const { openMs, greetingMs, handshakeMs } = this.deadlines;
    const opening = this.deadline(openMs, `The Grid did not open the browser's VNC within ${seconds(openMs)} s.`);
    const upstream = new (webSocket())(url, {
      headers: authorization ? { authorization } : {},
      perMessageDeflate: false,
      handshakeTimeout: openMs,
      maxPayload: 64 * 1024 * 1024,
    });
    this.upstream = upstream;
    let greeting: (() => void) | undefined;
    upstream.on('open', () => {
      opening();
      greeting = this.deadline(
        greetingMs,
        `The browser's VNC did not greet within ${seconds(greetingMs)} s; the node's VNC server may be down.`,
      );
    });
    upstream.on('message', (data: Buffer) => {
      if (this.piping) {
        this.toViewer(data);
      } else {
        this.fromUpstream.push(data);
      }
    });
    upstream.on('close', () =>
      this.close(CLOSE.upstream, this.piping ? ENDED : "The browser's VNC closed before its handshake ended."),
    );
    upstream.on('error', () => this.close(CLOSE.upstream, "The browser's VNC could not be reached through the Grid."));
    upstream.on('unexpected-response', (request, response) => {
      request.destroy();
      this.close(
        CLOSE.upstream,
        `The Grid refused the browser's VNC (HTTP ${response.statusCode ?? 0}); the browser may have ended.`,
      );
    });
    const handshake = this.deadline(
      openMs + greetingMs + handshakeMs,
      "The browser's VNC handshake did not finish in time; reconnect.",
    );
    void this.run(() => greeting?.(), handshake).catch((error: unknown) => {
      if (error instanceof TunnelEnd) {
        this.close(error.code, error.reason);
      } else if (!this.ended) {
        this.close(CLOSE.upstream, ENDED);
      }
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
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    clearInterval(this.watch);
    const end = new TunnelEnd(code, reason);
    this.fromViewer.fail(end);
    this.fromUpstream.fail(end);
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

  private async run(greeted: () => void, handshook: () => void): Promise<void> {
    const serverInit = await greetUpstream(
      this.fromUpstream,
      (bytes) => this.toUpstream(bytes),
      this.options.password,
      greeted,
    );
    await greetViewer(this.fromViewer, (bytes) => this.toViewer(bytes), serverInit);
    handshook();
    // What the server sent past its ServerInit (a bell, its clipboard) goes first.
    const early = this.fromUpstream.drain();
    if (early.length > 0) {
      this.toViewer(early);
    }
    this.piping = true;
    await this.relay();
  }

  /** The viewer's messages, one by one (RFC 6143 §7.5): lengths bounded, input only under Control. */
  private async relay(): Promise<void> {
    const queue = this.fromViewer;
    for (;;) {
      const type = (await queue.read(1))[0]!;
      const head = Buffer.from([type]);
      switch (type) {
        case CLIENT.setPixelFormat:
          this.toUpstream(Buffer.concat([head, await queue.read(19)]));
          break;
        case CLIENT.setEncodings: {
          const count = (await queue.read(3)).readUInt16BE(1);
          if (count > MAX_ENCODINGS) {
            throw new TunnelEnd(CLOSE.refused, `The viewer announced over ${MAX_ENCODINGS} encodings; reconnect.`);
          }
          this.toUpstream(filteredSetEncodings(await queue.read(4 * count)));
          break;
        }
        case CLIENT.framebufferUpdateRequest:
          this.toUpstream(Buffer.concat([head, await queue.read(9)]));
          break;
        case CLIENT.keyEvent:
          await this.input.pass(Buffer.concat([head, await queue.read(7)]));
          break;
        case CLIENT.pointerEvent:
          await this.input.pass(Buffer.concat([head, await queue.read(5)]));
          break;
        case CLIENT.clientCutText: {
          const rest = await queue.read(7);
          const length = rest.readUInt32BE(3);
          if (length > MAX_CUT_TEXT) {
            throw new TunnelEnd(CLOSE.refused, 'The viewer sent clipboard text over 256 KiB; reconnect.');
          }
          await this.input.pass(Buffer.concat([head, rest, await queue.read(length)]));
          break;
        }
        default:
          throw new TunnelEnd(CLOSE.refused, `The live view passes no VNC message of type ${type}; reconnect.`);
      }
    }
  }

  private toUpstream(bytes: Buffer): void {
    if (this.upstream?.readyState === webSocket().OPEN) {
      this.upstream.send(bytes);
    }
  }

  private toViewer(bytes: Buffer): void {
    if (this.viewer.readyState === webSocket().OPEN) {
      this.viewer.send(bytes);
    }
  }

  /** Closes the tunnel with `reason` after `ms`, unless the answer it stops arrives first. */
  private deadline(ms: number, reason: string): () => void {
    const timer = setTimeout(() => this.close(CLOSE.upstream, reason), ms);
    timer.unref();
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
