import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { NotFound } from '../errors.js';
import type { ResourceServer } from '../oauth/resource-server.js';

/**
 * The addresses an MCP client tries when a 401 might mean OAuth (RFC 9728 protected-resource
 * metadata, RFC 8414 and OpenID discovery, RFC 7591 registration). Not in the OpenAPI document:
 * they describe how to sign in, not the API.
 *
 * With OAUTH_ISSUER the protected-resource metadata names the issuer, and the rest answer 404
 * pointing to it: this server is a resource server, never the authorization server. Without
 * it, each answers 404 without asking for a token, which clients read as "no OAuth here" — a
 * 401 made them try to register a client and report that as the failure.
 */
const PROTECTED_RESOURCE = '/.well-known/oauth-protected-resource';
const AUTHORIZATION_SERVER = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const;

export interface DiscoveryOptions {
  oauth?: ResourceServer;
}

export const oauthDiscovery: FastifyPluginAsync<DiscoveryOptions> = async (app, { oauth }) => {
  const refuse = async () => {
    throw new NotFound(
      oauth
        ? `This server is not an authorization server; sign in through its issuer, ${oauth.issuer.url}, which ${oauth.metadataUrl} names.`
        : 'This server does not use OAuth; send its token as a header, Authorization: Bearer <MCP_AUTH_TOKEN>.',
    );
  };
  const config = { access: 'public' as const };
  // RFC 9728 and RFC 8414 insert the resource's path after the well-known name: a client that
  // derives it from the MCP URL (`…/oauth-protected-resource/mcp`) finds the same document.
  for (const url of [PROTECTED_RESOURCE, `${PROTECTED_RESOURCE}/*`]) {
    const handler = oauth
      ? async (_request: unknown, reply: FastifyReply) =>
          reply.header('cache-control', 'public, max-age=300').send(oauth.metadata())
      : refuse;
    app.route({ method: 'GET', url, config, handler });
  }
  for (const path of AUTHORIZATION_SERVER) {
    for (const url of [path, `${path}/*`]) {
      app.route({ method: 'GET', url, config, handler: refuse });
    }
  }
  app.route({ method: ['GET', 'POST'], url: '/register', config, handler: refuse });
};
