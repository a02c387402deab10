import type { ServerResponse } from 'node:http';
import { TooManyRequests } from '../errors.js';
import { MAX_HISTORY, MAX_STREAMS, type AuditEvent, type EventLog } from './events.js';

/** A client this far behind is let go: it reconnects with Last-Event-ID and loses nothing kept. */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** What a browser's EventSource (or the page's reader) waits before reconnecting. */
const RETRY_MS = 2_000;

export interface StreamStart {
  /** the id of the last event the client saw: the stream replays what came after it */
  lastEventId: string | undefined;
  /** without a last id, how many of the newest events to replay first */
  limit: number;
}

/**
 * The events to send before the live ones, oldest first: those after `lastEventId` when the
 * history still holds it, else the newest `limit` (a client that was away longer than the
 * history reaches, or came to another replica, gets what is kept and drops what it has by id).
 */
export function replayOf(history: readonly AuditEvent[], start: StreamStart): AuditEvent[] {
  const seen = start.lastEventId === undefined ? -1 : history.findIndex((e) => e.id === start.lastEventId);
  const newer = seen >= 0 ? history.slice(0, seen) : history.slice(0, start.lastEventId ? MAX_HISTORY : start.limit);
  return [...newer].reverse();
}

/**
 * Serves the audit events to one client as server-sent events on a raw response: the replay,
 * then each event as it is published anywhere, a heartbeat comment now and then, until the
 * client goes away or the server shuts down (EventLog.endStreams). Live events that arrive
 * while the history is read are held and sent after it, each once. With every place taken
 * it throws the refusal before `hijack` is called, so the refusal is an ordinary answer.
 */
export async function serveEvents(
  log: EventLog,
  response: ServerResponse,
  start: StreamStart,
  hijack: () => void,
): Promise<void> {
  let finished = false;
  let unsubscribe = () => {};
  const claim = log.openStream(() => finish());
  if (!claim) {
    throw new TooManyRequests(
      `This server already serves ${MAX_STREAMS} event streams (MAX_STREAMS); close an Events view you no longer watch, or read GET /admin/api/events instead of streaming.`,
    );
  }
  // Nothing is written once finished: a write after end would be an error nobody listens for.
  const write = (text: string) => finished || response.write(text);
  // A comment this often keeps proxies (which drop a quiet connection after a minute or so) from closing it.
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), log.heartbeatMs);
  function finish() {
    if (finished) {
      return;
    }
    finished = true;
    clearInterval(heartbeat);
    unsubscribe();
    claim?.release();
    response.end();
  }
  hijack();
  const closed = new Promise<void>((resolve) => response.once('close', resolve));
  response.once('close', finish);
  response.on('error', finish);
  // Only while the replay and the events held meanwhile are sent: they may overlap, live ones never do.
  let sent: Set<string> | undefined = new Set<string>();
  let held: AuditEvent[] | undefined = [];
  const send = (event: AuditEvent) => {
    if (finished || sent?.has(event.id)) {
      return;
    }
    sent?.add(event.id);
    write(`id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
    if (response.writableLength > MAX_UNSENT_BYTES) {
      finish();
    }
  };
  unsubscribe = log.bus.subscribe((event) => (held ? held.push(event) : send(event)));
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx buffers a response unless told not to: the events would arrive in lumps.
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  write(`retry: ${RETRY_MS}\n: the audit events; what is kept first, then live\n\n`);
  const history = await log.recent(MAX_HISTORY).catch(() => undefined);
  if (history === undefined) {
    write(': the history cannot be read now (the event store is unavailable); live events follow\n\n');
  }
  for (const event of replayOf(history ?? [], start)) {
    send(event);
  }
  const waiting = held;
  held = undefined;
  for (const event of waiting) {
    send(event);
  }
  sent = undefined;
  await closed;
}
