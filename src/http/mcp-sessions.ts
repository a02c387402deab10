import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { NotFound } from '../errors.js';
import { sessionCaller, type Caller } from '../workspace/caller.js';
import { newMcpSessionId, type McpSessionStore } from '../workspace/mcp-sessions.js';

/** What a session keeps of a client's announced extensions: their names, this many, this long at most. */
const MAX_EXTENSIONS = 16;
const MAX_EXTENSION_CHARS = 128;
/** An id this server issues is 43 characters; anything far longer was never one. */
const MAX_ID_CHARS = 128;

const initializeShape = z.object({
  method: z.literal('initialize'),
  params: z
    .object({ capabilities: z.object({ extensions: z.record(z.string(), z.unknown()).optional() }).optional() })
    .optional(),
});

const SESSION_ENDED =
  'This MCP session has ended (closed, expired, or never issued here); send initialize without Mcp-Session-Id to start a new one.';

/** A request as its MCP session has it. */
export interface InSession {
  caller: Caller;
  /** the extensions the session's client announced at initialize; undefined outside a session */
  announced?: string[];
  /** a DELETE ended the session */
  ended?: boolean;
}

/**
 * The 2025-11-25 sessions of Streamable HTTP, kept in the shared store rather than in a
 * transport, so any replica serves any request of a session: `initialize` opens one and answers
 * its Mcp-Session-Id; a request bearing an id this server did not issue to the request's own
 * token, or one that ended or expired, is a 404 (the client then initializes again); DELETE ends
 * it. A request without an id is served statelessly, as before.
 */
export class McpSessions {
  constructor(private readonly store: McpSessionStore) {}

  async admit(request: FastifyRequest, reply: FastifyReply, caller: Caller): Promise<InSession> {
    const owner = caller.owner ?? '';
    const initialize = request.method === 'POST' ? initializeShape.safeParse(request.body) : undefined;
    if (initialize?.success) {
      const id = newMcpSessionId();
      const announced = Object.keys(initialize.data.params?.capabilities?.extensions ?? {})
        .filter((name) => name.length <= MAX_EXTENSION_CHARS)
        .slice(0, MAX_EXTENSIONS);
      await this.store.open(id, { owner, extensions: announced });
      // Set before the SDK writes its head, which carries it.
      reply.raw.setHeader('mcp-session-id', id);
      return { caller: sessionCaller(caller, id), announced };
    }
    const header = request.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id === undefined) {
      return { caller };
    }
    const session = id.length <= MAX_ID_CHARS ? await this.store.use(id, owner) : undefined;
    if (!session) {
      throw new NotFound(SESSION_ENDED);
    }
    const ended = request.method === 'DELETE' && (await this.store.end(id, owner));
    return { caller: sessionCaller(caller, id), announced: session.extensions, ended };
  }
}
