import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { AdminLink } from '../../admin/link.js';
import { Forbidden, Unauthorized } from '../../errors.js';
import type { Principal, TokenBook } from '../../workspace/tokens.js';
import type { RequestGuard } from '../guard.js';
import { global } from './global.js';

/**
 * Who may call a route: anyone (health checks, the API description), the bearer token (the
 * default), the admin token, or the holder of a signed link (an HMAC with an expiry, checked
 * by the route itself).
 */
export type Access = 'public' | 'bearer' | 'admin' | 'signed';

declare module 'fastify' {
  interface FastifyRequest {
    /** who the bearer token says is asking (set for bearer routes) */
    principal?: Principal;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** answers whatever the Host header says (probes: kubelets and load balancers address a pod by IP) */
    anyHost?: boolean;
  }
}

export interface AuthOptions {
  /** Host and Origin: who may address this server by which name */
  guard: RequestGuard;
  /** every bearer token (MCP_AUTH_TOKEN and TOKENS_FILE) and who each stands for */
  tokens: TokenBook;
  authToken: string | undefined;
  /** the admin API's token (ADMIN_TOKEN); the bearer token when unset; neither: the admin API is closed */
  adminToken?: string;
  /** with no token at all: the banner's one-time link, and the admin session it was exchanged for */
  adminLink?: AdminLink;
}

/** What an admin call without the link's session is told, on a server without a token. */
export const ADMIN_SESSION_REMEDY =
  'Missing or wrong admin session; open the admin link the server printed when it started (restart the server for a new link), or set ADMIN_TOKEN.';

/**
 * The one place every request is checked, before any route's handler: by name (Host, Origin),
 * then by the token its route's `access` asks for. A route nobody matched (a 404) asks for the
 * bearer token like any other, so a guess at a path learns nothing without one.
 */
export const auth = global<AuthOptions>(async (app, options) => {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    const { access = 'bearer', anyHost = false } = request.routeOptions.config;
    options.guard.check(request, anyHost);
    if (access === 'admin') {
      checkAdmin(request, options);
    } else if (access === 'bearer') {
      // A signed link carries its own proof (an HMAC with an expiry), checked by its route.
      const principal = options.tokens.principalOf(bearerOf(request));
      if (!principal) {
        throw new Unauthorized(
          'Missing or wrong bearer token; send Authorization: Bearer <MCP_AUTH_TOKEN, or a token of TOKENS_FILE>.',
        );
      }
      request.principal = principal;
    }
  });
});

function checkAdmin(request: FastifyRequest, options: AuthOptions): void {
  const adminToken = options.adminToken ?? options.authToken;
  if (adminToken) {
    const given = Buffer.from(bearerOf(request) ?? '');
    const expected = Buffer.from(adminToken);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new Unauthorized('Missing or wrong admin token; send Authorization: Bearer <ADMIN_TOKEN>.');
    }
  } else if (options.adminLink) {
    if (!options.adminLink.accepts(bearerOf(request))) {
      throw new Unauthorized(ADMIN_SESSION_REMEDY);
    }
  } else {
    throw new Forbidden(
      'The admin API is closed because no admin token is set; set ADMIN_TOKEN (or MCP_AUTH_TOKEN, which it defaults to) and send it as Authorization: Bearer <token>.',
    );
  }
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  return header.startsWith('Bearer ') ? header.slice(7) : undefined;
}
