import { auditEvent, type AuditEvent } from '../../src/events/events.js';

/** A client of GET /admin/api/events/stream, reading the server-sent events as a page would (fetch + a reader). */
export interface EventReader {
  status: number;
  /** every event received, in the order received, each checked against the event schema */
  readonly events: AuditEvent[];
  /** the comment lines (`: …`), heartbeats among them */
  readonly comments: string[];
  /** the first event received that matches, waiting for it when it has not come yet */
  next(match: (event: AuditEvent) => boolean, timeoutMs?: number): Promise<AuditEvent>;
  /** settles when the server ends the stream */
  readonly ended: Promise<void>;
  close(): void;
}

export async function readEvents(
  base: string,
  token: string,
  options: { lastEventId?: string; limit?: number; prefix?: string } = {},
): Promise<EventReader> {
  const abort = new AbortController();
  const url = `${base}${options.prefix ?? ''}/admin/api/events/stream${options.limit ? `?limit=${options.limit}` : ''}`;
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
    },
    signal: abort.signal,
  });
  const events: AuditEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let over = false;
  const told = () => {
    for (const waiter of waiters) {
      waiter();
    }
  };
  const ended = (async () => {
    if (!response.ok || !response.body) {
      over = true;
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          comments.push(...block.filter((l) => l.startsWith(':')).map((l) => l.slice(1).trim()));
          const data = block.find((l) => l.startsWith('data: '));
          const id = block.find((l) => l.startsWith('id: '))?.slice(4);
          if (data) {
            const event = auditEvent.parse(JSON.parse(data.slice(6)));
            if (event.id !== id) {
              throw new Error(`an event's id line (${id}) is not its id (${event.id})`);
            }
            events.push(event);
          }
        }
        told();
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') {
        throw err;
      }
    } finally {
      over = true;
      told();
    }
  })();
  return {
    status: response.status,
    events,
    comments,
    ended,
    close: () => abort.abort(),
    next: (match, timeoutMs = 30_000) =>
      new Promise<AuditEvent>((resolve, reject) => {
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        const check = () => {
          const found = events.find(match);
          if (found || over) {
            finish(found);
          }
        };
        const finish = (found: AuditEvent | undefined) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (found) {
            resolve(found);
          } else {
            reject(new Error(`no such event came; received: ${JSON.stringify(events.map((e) => e.type))}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
