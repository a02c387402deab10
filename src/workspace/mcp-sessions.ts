import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ExpiringMap } from '../expiring-map.js';

/**
 * What a 2025-11-25 client said at `initialize` over HTTP, kept for the requests after it: that
 * era names a client's capabilities once, and every HTTP request here has a fresh MCP server.
 */
export interface McpSession {
  /** the principal whose token opened it: no other token's request may use it */
  owner: string;
  /** the extensions its client announced (capabilities.extensions' names), e.g. the UI extension */
  extensions: string[];
}

/** A session as any replica reads it back: another version may have written it. */
export const mcpSessionShape: z.ZodType<McpSession> = z.object({
  owner: z.string(),
  extensions: z.array(z.string()),
});

/**
 * The MCP sessions of every replica (memory, or the Redis they share). Each lives SESSION_TTL
 * unused, as a workspace record does, and each token holds at most `perOwner`: opening one more
 * ends its least recently used, whose client then initializes again (a 404 tells it to).
 */
export interface McpSessionStore {
  open(id: string, session: McpSession): Promise<void>;
  /** The session under `id` if `owner` opened it, its idle time restarted; else undefined. */
  use(id: string, owner: string): Promise<McpSession | undefined>;
  /** Ends it; whether `owner` had it. */
  end(id: string, owner: string): Promise<boolean>;
}

/** Unguessable: with the token, the id is all a client shows to be its session. */
export function newMcpSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** What a store keeps an id under: its digest, never the id (a store dump resumes no session). */
export function mcpSessionDigest(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

export class MemoryMcpSessions implements McpSessionStore {
  private readonly sessions: ExpiringMap<McpSession>;
  /** per owner, its sessions' digests, least recently used first (a Set keeps insertion order) */
  private readonly owners = new Map<string, Set<string>>();

  constructor(
    private readonly ttlMs: number,
    private readonly perOwner: number,
    now: () => number = Date.now,
  ) {
    this.sessions = new ExpiringMap(now);
  }

  async open(id: string, session: McpSession): Promise<void> {
    const digest = mcpSessionDigest(id);
    this.sessions.set(digest, session, this.ttlMs);
    const held = this.owned(session.owner);
    held.add(digest);
    this.owners.set(session.owner, held);
    for (const oldest of held) {
      if (held.size <= this.perOwner) {
        break;
      }
      held.delete(oldest);
      this.sessions.delete(oldest);
    }
  }

  async use(id: string, owner: string): Promise<McpSession | undefined> {
    const digest = mcpSessionDigest(id);
    const session = this.sessions.get(digest);
    if (session?.owner !== owner) {
      return undefined;
    }
    this.sessions.set(digest, session, this.ttlMs);
    const held = this.owned(owner);
    held.delete(digest);
    held.add(digest);
    this.owners.set(owner, held);
    return session;
  }

  async end(id: string, owner: string): Promise<boolean> {
    const digest = mcpSessionDigest(id);
    if (this.sessions.get(digest)?.owner !== owner) {
      return false;
    }
    this.sessions.delete(digest);
    this.owned(owner).delete(digest);
    return true;
  }

  /** An owner's index, without the sessions that expired since (they no longer count against it). */
  private owned(owner: string): Set<string> {
    const held = this.owners.get(owner) ?? new Set<string>();
    for (const digest of held) {
      if (this.sessions.get(digest) === undefined) {
        held.delete(digest);
      }
    }
    if (held.size === 0) {
      this.owners.delete(owner);
    }
    return held;
  }
}
