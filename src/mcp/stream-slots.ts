import { TooManyRequests } from '../errors.js';
import { STREAMS_MAX, STREAMS_PER_CALLER, STREAMS_PER_TOKEN } from '../limits.js';
import type { Caller } from '../workspace/caller.js';

export interface StreamLimits {
  perCaller: number;
  /** STREAMS_PER_TOKEN: one token's streams across all its workspaces */
  perToken: number;
  max: number;
}

/**
 * The places for MCP notification streams in this process, both eras together (2025-11-25's
 * GET /mcp, 2026-07-28's subscriptions/listen): at most `perCaller` per caller, `perToken` per
 * token across its workspaces, `max` in all. A stream holds a socket and a listener of this
 * process for as long as it is open, so the count is the process's own, never the store's: each
 * replica guards its own sockets, and no token takes more than its share of them.
 */
export class StreamSlots {
  private readonly callers = new Map<string, number>();
  private readonly tokens = new Map<string, number>();
  private total = 0;

  constructor(
    readonly limits: StreamLimits = { perCaller: STREAMS_PER_CALLER, perToken: STREAMS_PER_TOKEN, max: STREAMS_MAX },
  ) {}

  /** Takes a place for one stream of `caller`, or refuses with the limit it reached; answers its release. */
  take(caller: Caller): () => void {
    const callerKey = `${tokenOf(caller)}\n${caller.key ?? ''}`;
    const token = tokenOf(caller);
    const { perCaller, perToken, max } = this.limits;
    if ((this.callers.get(callerKey) ?? 0) >= perCaller) {
      throw new TooManyRequests(
        `This caller already holds ${perCaller} notification streams (GET /mcp or subscriptions/listen) in this workspace; close one before opening another.`,
      );
    }
    if ((this.tokens.get(token) ?? 0) >= perToken) {
      throw new TooManyRequests(
        `This token already holds ${perToken} notification streams across its workspaces (STREAMS_PER_TOKEN); close the streams it no longer reads, or ask the server's operator to raise STREAMS_PER_TOKEN.`,
      );
    }
    if (this.total >= max) {
      throw new TooManyRequests(
        `This server already holds ${max} notification streams, its most; retry in a minute (a stream ends within 10 minutes).`,
      );
    }
    bump(this.callers, callerKey, 1);
    bump(this.tokens, token, 1);
    this.total += 1;
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      bump(this.callers, callerKey, -1);
      bump(this.tokens, token, -1);
      this.total -= 1;
    };
  }
}

/** Who a token stands for (the principal's id); all token-less callers are one. */
function tokenOf(caller: Caller): string {
  return caller.owner ?? '';
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) {
    counts.set(key, next);
  } else {
    counts.delete(key);
  }
}
