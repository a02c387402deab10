import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveCaller, type Caller } from '../../workspace/caller.js';
import { ANONYMOUS } from '../../workspace/tokens.js';
import { global } from './global.js';
import { queryOf } from '../routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** who is asking: set by the caller hook on every bearer route, before any handler runs */
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** the MCP endpoint: `?workspace=` names the caller too, not only X-Workspace (its session: mcp-route.ts) */
    mcp?: boolean;
  }
}

/**
 * The one place a request's caller is decided: X-Workspace (on /mcp also `?workspace=`, and an
 * MCP session once the route has checked it), under what its bearer token allows. It runs after the token check, so a bad
 * or forbidden workspace is a 4xx before a handler, or the MCP SDK, takes the request. Admin
 * and signed routes address a workspace by their path instead, and a route nobody matched (a
 * 404) has no caller to decide.
 */
export interface CallerOptions {
  /** WORKSPACES_PER_TOKEN: refuses (409) a token's new workspace name past its quota */
  admit?: (owner: string, workspace: string) => Promise<void>;
}

export const caller = global<CallerOptions>(async (app, options) => {
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
      principal: request.principal,
    });
    if (resolved.workspace !== undefined) {
      await options.admit?.(resolved.owner ?? ANONYMOUS.id, resolved.workspace);
    }
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
