import { NO_EVENTS, type EventSink } from '../events/events.js';
import { countSecretBind } from '../ops/metrics.js';

/**
 * Every bind is recorded — allowed or refused — with who, where and what, never the value.
 * A refused bind is the loud one (warn): it is the signal that something tried to use a
 * credential where its owner did not allow it.
 */
export interface BindEvent {
  workspace: string | null;
  flow: string | null;
  step: number | string | null;
  /** as the catalogue spells it; null when no such secret exists (the request is not echoed) */
  secret: string | null;
  key: string | null;
  /** the origin of the page that was to receive the keys, never its full URL */
  origin: string;
  allowed: boolean;
  /** why it was refused */
  reason?: string;
}

/** The slice of a pino logger the audit needs. */
export interface AuditLogger {
  info(event: object, message: string): void;
  warn(event: object, message: string): void;
}

export class BindAudit {
  constructor(
    private log: AuditLogger,
    /** the operator's event stream, which shows every bind beside the log line */
    private readonly events: EventSink = NO_EVENTS,
  ) {}

  /** The HTTP server hands over its own logger once it exists, so events land in one stream. */
  useLogger(log: AuditLogger): void {
    this.log = log;
  }

  record(event: BindEvent): void {
    countSecretBind(event.allowed);
    const line = { event: 'secret_bind', ...event };
    this.events.emit({ type: 'secret_bind', ...event });
    if (event.allowed) {
      this.log.info(line, 'secret bound');
    } else {
      this.log.warn(line, 'secret bind refused');
    }
  }
}
