import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { AdminLink } from '../../admin/link.js';
import { Forbidden, Unauthorized } from '../../errors.js';
import type { Audience, ResourceServer } from '../../oauth/resource-server.js';
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
    /** on an admin route: its credential is a person's, held by no agent (what Control asks, docs/security.md) */
    adminIsPerson?: boolean;
    /** with OAUTH_ISSUER, on bearer and admin routes: what a 401 or 403 names in WWW-Authenticate */
    oauthChallenge?: OAuthChallenge;
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
  /** OAUTH_ISSUER: access tokens, beside the static ones unless STATIC_TOKENS=off (then `tokens` holds none) */
  oauth?: ResourceServer;
}

/** RFC 6750 §3 and RFC 9728 §5.1: where a client finds the issuer, and the scope the route needs. */
export interface OAuthChallenge {
  resourceMetadata: string;
  scope: string;
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
  app.decorateRequest('adminIsPerson', undefined);
  app.decorateRequest('oauthChallenge', undefined);
  app.addHook('onRequest', async (request) => {
    const { access = 'bearer', anyHost = false } = request.routeOptions.config;
    options.guard.check(request, anyHost);
    if (access !== 'admin' && access !== 'bearer') {
      // A signed link carries its own proof (an HMAC with an expiry), checked by its route.
      return;
    }
    const audience: Audience = access === 'admin' ? 'admin' : 'agent';
    if (options.oauth) {
      request.oauthChallenge = { resourceMetadata: options.oauth.metadataUrl, scope: options.oauth.scopes[audience] };
    }
    if (audience === 'admin') {
      request.adminIsPerson = await checkAdmin(request, options);
    } else {
      request.principal = await bearerPrincipal(request, options);
    }
  });
});

async function bearerPrincipal(request: FastifyRequest, options: AuthOptions): Promise<Principal> {
  const token = bearerOf(request);
  const { tokens, oauth } = options;
  if (!oauth) {
    const principal = tokens.principalOf(token);
    if (!principal) {
      throw new Unauthorized(
        'Missing or wrong bearer token; send Authorization: Bearer <MCP_AUTH_TOKEN, or a token of TOKENS_FILE>.',
      );
    }
    return principal;
  }
  // With an issuer the server is never open: no static token configured means OAuth only.
  const principal = tokens.open ? undefined : tokens.principalOf(token);
  if (principal) {
    return principal;
  }
  if (!token) {
    throw oauth.missing('agent', !tokens.open);
  }
  return oauth.principalOf(token, 'agent', !tokens.open);
}

/**
 * Checks the admin credential, and answers whether it is a person's: the one-time link's session
 * (printed to the terminal), an ADMIN_TOKEN that is none of the agents' tokens, or an access token
 * with the operators' scope and not the agents' (the admin page asks for that one alone). The
 * bearer token standing in for an unset ADMIN_TOKEN is an agent's too.
 */
async function checkAdmin(request: FastifyRequest, options: AuthOptions): Promise<boolean> {
  const adminToken = options.adminToken ?? options.authToken;
  const token = bearerOf(request);
  if (adminToken && token !== undefined && sameToken(token, adminToken)) {
    return options.adminToken !== undefined && !options.tokens.isAgentToken(options.adminToken);
  }
  const { oauth } = options;
  if (oauth) {
    if (!token) {
      throw oauth.missing('admin', adminToken !== undefined);
    }
    // A wrong static admin token and a bad access token read the same: the issuer's sentence.
    const principal = await oauth.principalOf(token, 'admin', adminToken !== undefined);
    return principal.person === true;
  } else if (adminToken) {
    throw new Unauthorized('Missing or wrong admin token; send Authorization: Bearer <ADMIN_TOKEN>.');
  } else if (options.adminLink) {
    if (!options.adminLink.accepts(token)) {
      throw new Unauthorized(ADMIN_SESSION_REMEDY);
    }
    return true;
  } else {
    throw new Forbidden(
      'The admin API is closed because no admin token is set; set ADMIN_TOKEN (or MCP_AUTH_TOKEN, which it defaults to) and send it as Authorization: Bearer <token>.',
    );
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  return header.startsWith('Bearer ') ? header.slice(7) : undefined;
}
