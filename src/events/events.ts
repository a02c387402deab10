import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * The audit events an operator watches: secret binds (allowed and refused), flow runs, browsers
 * opened and ended, workspaces deleted. Each names a workspace, never a page's full URL, a title, typed text or a
 * Grid id; a secret bind names the secret and key, never a value.
 */
const eventBase = {
  id: z.string().describe('unique; send the last one seen as Last-Event-ID to resume'),
  at: z.string().describe('ISO 8601, UTC'),
  replica: z.string().describe('which server process saw it (a random name per process)'),
  workspace: z.string().nullable().describe('null: a stateless caller'),
};

export const auditEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('secret_bind'),
    ...eventBase,
    flow: z.string().nullable(),
    step: z.union([z.number(), z.string()]).nullable(),
    secret: z.string().nullable().describe('as the catalogue spells it; null when no such secret exists'),
    key: z.string().nullable(),
    origin: z.string().describe('the origin of the page that was to receive it, never its full URL'),
    allowed: z.boolean(),
    reason: z.string().optional(),
  }),
  z.object({
    type: z.literal('flow_run'),
    ...eventBase,
    flow: z.string(),
    status: z.enum(['ok', 'failed']),
    steps_run: z.number().int(),
    steps_total: z.number().int(),
  }),
  z.object({
    type: z.literal('browser_opened'),
    ...eventBase,
    browser: z.string(),
  }),
  z.object({
    type: z.literal('browser_ended'),
    ...eventBase,
    by: z.enum(['caller', 'operator']).describe('an agent (end_browser, or opening another), or an operator'),
  }),
  z.object({
    type: z.literal('workspace_deleted'),
    ...eventBase,
    by: z.literal('operator').describe('only the admin API deletes a workspace'),
    browser: z.boolean().describe('whether a running browser was ended with it'),
    downloads: z.number().int(),
    screenshots: z.number().int(),
    files: z.number().int(),
    flows: z.number().int(),
  }),
]);

export type AuditEvent = z.infer<typeof auditEvent>;

/** What an area hands to emit(): the event without the fields the log stamps. */
export type NewEvent = AuditEvent extends infer E
  ? E extends AuditEvent
    ? Omit<E, 'id' | 'at' | 'replica'>
    : never
  : never;

/** The one call an area makes to report something an operator should see. Never throws, never waits. */
export interface EventSink {
  emit(event: NewEvent): void;
}

/** Past this the history forgets the oldest: an operator's page shows recent events, not an archive. */
export const MAX_HISTORY = 500;
/** Streams open at once per replica: each holds a socket and a listener. */
export const MAX_STREAMS = 32;
/** A text field of an event is cut at this, so an event (a dozen fields) stays under 4 KB as JSON. */
export const MAX_FIELD_CHARS = 256;

/** How events travel: in this process, or through Redis to every replica. */
export interface EventBus {
  /** delivers to every replica's subscribers (this one's included) and keeps it in the history */
  publish(event: AuditEvent): Promise<void>;
  /** the history, newest first, at most `limit` */
  recent(limit: number): Promise<AuditEvent[]>;
  /** called for every event published anywhere, in order */
  subscribe(listener: (event: AuditEvent) => void): () => void;
  close(): Promise<void>;
}

/** The bus of one process: a ring of the last MAX_HISTORY events and a fan-out. */
export class LocalEventBus implements EventBus {
  private readonly history: AuditEvent[] = [];
  private readonly listeners = new Set<(event: AuditEvent) => void>();

  async publish(event: AuditEvent): Promise<void> {
    this.deliver(event);
  }

  /** Keeps and fans out an event that arrived (from this process or, for a Redis bus, another). */
  deliver(event: AuditEvent): void {
    this.history.unshift(event);
    this.history.length = Math.min(this.history.length, MAX_HISTORY);
    for (const listener of this.listeners) {
      listener(event);
    }
  }

  async recent(limit: number): Promise<AuditEvent[]> {
    return this.history.slice(0, Math.min(limit, MAX_HISTORY));
  }

  subscribe(listener: (event: AuditEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

/**
 * The audit event log: areas emit into it (one call), the admin API reads its history and
 * streams it. Emitting stamps an id, the time and this replica's name, bounds the size, and
 * never fails the action that emitted (a bus that cannot publish loses the event, not the call).
 */
export class EventLog implements EventSink {
  readonly replica = randomBytes(4).toString('hex');
  private counter = 0;
  private readonly streams = new Set<{ end: () => void }>();

  constructor(
    readonly bus: EventBus = new LocalEventBus(),
    /** how often each stream sends its keep-alive comment (EVENTS_HEARTBEAT) */
    readonly heartbeatMs: number = 15_000,
  ) {}

  emit(event: NewEvent): void {
    const stamped = bounded({
      ...event,
      id: `${Date.now().toString(36)}-${this.replica}-${(this.counter++).toString(36)}`,
      at: new Date().toISOString(),
      replica: this.replica,
    });
    this.bus.publish(stamped).catch(() => undefined);
  }

  recent(limit = MAX_HISTORY): Promise<AuditEvent[]> {
    return this.bus.recent(limit);
  }

  /**
   * A stream's claim on one of MAX_STREAMS places; undefined when every place is taken.
   * `end` is how the stream is told to finish when the server shuts down (endStreams).
   */
  openStream(end: () => void): { release(): void } | undefined {
    if (this.streams.size >= MAX_STREAMS) {
      return undefined;
    }
    const claim = { end };
    this.streams.add(claim);
    return { release: () => this.streams.delete(claim) };
  }

  /** Ends every open stream: an open one would hold the server's close until its client let go. */
  endStreams(): void {
    for (const { end } of [...this.streams]) {
      end();
    }
    this.streams.clear();
  }

  async close(): Promise<void> {
    this.endStreams();
    await this.bus.close();
  }
}

function bounded(event: AuditEvent): AuditEvent {
  return auditEvent.parse(
    Object.fromEntries(
      Object.entries(event).map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, MAX_FIELD_CHARS) : v]),
    ),
  );
}

/** A sink that drops everything, for parts built without a log (unit tests, tools run alone). */
export const NO_EVENTS: EventSink = { emit: () => undefined };
