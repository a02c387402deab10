import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveCaller, type Caller } from '../../workspace/caller.js';
import { global } from './global.js';
import { queryOf } from '../routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** who is asking: set by the caller hook on every bearer route, before any handler runs */
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** the MCP endpoint: `?workspace=` and `Mcp-Session-Id` name the caller too, not only X-Workspace */
    mcp?: boolean;
  }
}

/**
 * The one place a request's caller is decided: X-Workspace (on /mcp also `?workspace=` and
 * Mcp-Session-Id), under what its bearer token allows. It runs after the token check, so a bad
 * or forbidden workspace is a 4xx before a handler, or the MCP SDK, takes the request. Admin
 * and signed routes address a workspace by their path instead, and a route nobody matched (a
 * 404) has no caller to decide.
 */
export const caller = global(async (app) => {
  app.decorateRequest('caller', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const { access = 'bearer', mcp = false } = request.routeOptions.config;
    if (access !== 'bearer' || request.routeOptions.url === undefined) {
      return;
    }
    const query = mcp ? queryOf(request).workspace : undefined;
    const resolved = resolveCaller({
      header: request.headers['x-workspace'],
      query: typeof query === 'string' ? query : null,
      mcpSessionId: mcp ? request.headers['mcp-session-id'] : undefined,
      principal: request.principal,
    });
    request.caller = {
      ...resolved,
      abandoned: abandonment(reply),
      requestId: String(request.id),
      origin: `${request.protocol}://${request.host}`,
    };
  });
});

/** The caller the hook set; a route that reads it without being a bearer route is a bug. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) {
    throw new Error(`${request.method} ${request.routeOptions.url ?? ''} reads a caller, but is not a bearer route.`);
  }
  return request.caller;
}

/** Aborted when the client goes away before its answer is sent. */
function abandonment(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) {
      abort.abort();
    }
  });
  return abort.signal;
}
