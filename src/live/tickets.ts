import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LiveDocuments, type LiveStore } from './live-store.js';

/** A browser's websocket cannot send an Authorization header: the admin token buys a ticket instead. */
export const TICKET_TTL_MS = 30_000;

const ticketGrant = z.object({
  workspace: z.string(),
  /** who the viewer is, as the admin page names them (a person's name; "a person" when unsaid) */
  who: z.string(),
  /** the viewer's id, which may hold Control: its tunnel ending withdraws it */
  viewer: z.string(),
  /**
   * minted by the caller's own tool call for an MCP App, whose frame has the host's origin, not
   * this server's: the ticket, single-use and bound to the caller's workspace, is the credential
   */
  app: z.literal(true).optional(),
});

export type Ticket = z.infer<typeof ticketGrant>;

/**
 * Tickets for the live tunnel: minted by a request that carried the admin token, taken once by
 * the websocket upgrade. The ticket is random (192 bits), lives 30 s, and is deleted as it is
 * read, so one seen in a log or a proxy's history opens nothing.
 */
export class Tickets {
  private readonly tickets: LiveDocuments<Ticket>;

  constructor(
    store: LiveStore,
    private readonly ttlMs: number = TICKET_TTL_MS,
  ) {
    this.tickets = new LiveDocuments(store, (id) => `ticket:${id}`, ticketGrant, ttlMs);
  }

  async mint(grant: Ticket): Promise<{ ticket: string; expires_in_seconds: number }> {
    const id = randomBytes(24).toString('base64url');
    await this.tickets.put(id, grant);
    return { ticket: id, expires_in_seconds: Math.round(this.ttlMs / 1000) };
  }

  /** The ticket's grant, once; undefined when it was never minted, is used or has expired. */
  async take(id: string): Promise<Ticket | undefined> {
    if (!/^[A-Za-z0-9_-]{32}$/.test(id)) {
      return undefined;
    }
    return this.tickets.take(id);
  }
}

/** An id for a viewer that may hold control: its tunnel's, handed out with its ticket. */
export function viewerId(): string {
  return randomBytes(12).toString('base64url');
}
