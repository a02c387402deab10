import type { ServerEvent } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { BadRequest } from '../errors.js';
import type { Caller } from '../workspace/caller.js';
import type { WorkspaceEventBus } from './list-changed.js';
import type { StreamSlots } from './stream-slots.js';

/**
 * A stream is ended after this long and the client opens another (the 2025-11-25 client
 * reconnects a GET stream the server ends, handing back its Last-Event-ID): a client that
 * vanished without closing its socket holds a slot no longer than this.
 */
export const LEGACY_STREAM_LIFETIME_MS = 10 * 60_000;
/** A comment line this often keeps proxies with a 60 s idle timeout from cutting a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** How long the client waits before it reconnects an ended stream. */
const RETRY_MS = 1_000;

/** The notification a 2025-11-25 client reads for each bus event (the rest concern no client of ours). */
const NOTIFICATIONS: Partial<Record<ServerEvent['kind'], string>> = {
  tools_list_changed: 'notifications/tools/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
};

/**
 * The 2025-11-25 way to hear the server unasked: a GET on the MCP endpoint opens an event stream
 * (Streamable HTTP). Each request has its own server here, so the stream belongs to the caller the
 * request names (its workspace, or its session's: http/mcp-sessions.ts), like a
 * `subscriptions/listen` stream, and hears the same bus: its workspace's flow changes and the
 * shared library's, never a neighbour's.
 */
export class LegacyStreams {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly bus: WorkspaceEventBus,
    /** shared with the 2026-07-28 listen streams: a caller's and a token's share cover both eras */
    private readonly slots: StreamSlots,
    private readonly lifetimeMs = LEGACY_STREAM_LIFETIME_MS,
  ) {}

  /** A refusal (4xx) while nothing is written yet; else the caller's place, held until `serve`'s stream ends. */
  admit(caller: Caller, accept: string | undefined): () => void {
    if (!accept?.includes('text/event-stream')) {
      throw new BadRequest(
        'GET /mcp opens an event stream of server notifications; send Accept: text/event-stream (or POST JSON-RPC messages).',
      );
    }
    return this.slots.take(caller);
  }

  /**
   * Writes the stream until the client goes, its lifetime ends or the server closes. A client
   * that reconnects with a Last-Event-ID older than a change that concerns it hears that change
   * at once: a notice missed between two streams would leave its tool list stale.
   */
  serve(caller: Caller, lastEventId: string | undefined, response: ServerResponse, release: () => void): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const write = (text: string) => {
      if (!response.writableEnded && !response.destroyed) {
        response.write(text);
      }
    };
    const notify = (method: string) =>
      write(`event: message\nid: ${this.bus.mark()}\ndata: ${JSON.stringify({ jsonrpc: '2.0', method })}\n\n`);
    // the priming event: an id to come back with, and how soon
    write(`id: ${this.bus.mark()}\nretry: ${RETRY_MS}\ndata: \n\n`);
    if (lastEventId !== undefined && this.bus.changedSince(caller, lastEventId)) {
      notify('notifications/tools/list_changed');
    }
    const unsubscribe = this.bus.asCaller(caller, () =>
      this.bus.subscribe((event) => {
        const method = NOTIFICATIONS[event.kind];
        if (method) {
          notify(method);
        }
      }),
    );
    const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
    const lifetime = setTimeout(() => end(), this.lifetimeMs);
    const end = () => {
      if (!this.open.delete(end)) {
        return;
      }
      release();
      unsubscribe();
      clearInterval(keepalive);
      clearTimeout(lifetime);
      response.end();
    };
    this.open.add(end);
    response.on('close', end);
  }

  /** Ends every stream (the server is closing): an open stream would hold the close, and clients reconnect. */
  endAll(): void {
    for (const end of [...this.open]) {
      end();
    }
  }
}
