import type { FastifyPluginAsync } from 'fastify';
import { NotFound } from '../errors.js';

/**
 * The addresses an MCP client tries when a 401 might mean OAuth (RFC 9728 protected-resource
 * metadata, RFC 8414 and OpenID discovery, RFC 7591 registration). This server takes a bearer
 * header and runs no authorization server: each answers 404 without asking for a token, which
 * clients read as "no OAuth here" — a 401 made them try to register a client and report that as
 * the failure. Not in the OpenAPI document: these are the routes that are not here.
 */
const DISCOVERY = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
] as const;

export const oauthDiscovery: FastifyPluginAsync = async (app) => {
  const refuse = async () => {
    throw new NotFound(
      'This server does not use OAuth; send its token as a header, Authorization: Bearer <MCP_AUTH_TOKEN>.',
    );
  };
  const config = { access: 'public' as const };
  for (const path of DISCOVERY) {
    // RFC 9728 and RFC 8414 insert the resource's path after the well-known name.
    for (const url of [path, `${path}/*`]) {
      app.route({ method: 'GET', url, config, handler: refuse });
    }
  }
  app.route({ method: ['GET', 'POST'], url: '/register', config, handler: refuse });
};
