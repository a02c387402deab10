import { z } from 'zod';
import { IssuerUnavailable, NotFound, Unauthorized } from '../errors.js';
import { basicAuthorization } from './introspection.js';
import type { ResourceServer } from './resource-server.js';

/** What the admin page needs to send a person to the issuer: all of it public. */
export const adminSignIn = z.object({
  oauth: z
    .object({
      issuer: z.string(),
      authorization_endpoint: z.string(),
      client_id: z.string(),
      scope: z.string(),
      resource: z.string(),
      redirect_uri: z.string(),
    })
    .nullable()
    .describe('null: no OAuth sign-in here (no OAUTH_ISSUER, or no OAUTH_ADMIN_CLIENT_ID); sign in with a token'),
});

const TokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().optional(),
});
const TokenError = z.looseObject({ error: z.string() });

/** Where the issuer sends a person back: the admin page itself, as OAUTH_ADMIN_CLIENT_ID registered it. */
export function adminRedirectUri(server: ResourceServer): string {
  return `${server.resource}/admin/`;
}

/** The admin page's sign-in, when the issuer and the page's client are set. */
export async function adminSignInOf(server: ResourceServer | undefined): Promise<z.infer<typeof adminSignIn>> {
  const client = server?.adminClient;
  if (!server || !client) {
    return { oauth: null };
  }
  const metadata = await server.issuer.metadata();
  if (!metadata.authorization_endpoint || !metadata.token_endpoint) {
    throw new IssuerUnavailable(
      `OAUTH_ISSUER ${server.issuer.url} publishes no authorization_endpoint or token_endpoint, so the admin page cannot sign in through it; sign in with ADMIN_TOKEN.`,
    );
  }
  return {
    oauth: {
      issuer: metadata.issuer,
      authorization_endpoint: metadata.authorization_endpoint,
      client_id: client.clientId,
      scope: server.scopes.admin,
      resource: server.resource,
      redirect_uri: adminRedirectUri(server),
    },
  };
}

/**
 * Redeems the code the issuer sent the admin page back with (authorization code + PKCE: the
 * verifier never left the page until now), and answers the access token only if it opens the
 * admin API. The server redeems it rather than the page, so the issuer need not allow the page's
 * origin (CORS) and a confidential client's secret stays here; the refresh token, if any, is
 * dropped: the page signs in again when its token expires.
 */
export async function redeemAdminCode(
  server: ResourceServer | undefined,
  code: string,
  verifier: string,
): Promise<{ token: string; expires_in?: number }> {
  const client = server?.adminClient;
  if (!server || !client) {
    throw new NotFound(
      'This server has no OAuth sign-in for the admin page (OAUTH_ISSUER or OAUTH_ADMIN_CLIENT_ID is unset); sign in with the admin token.',
    );
  }
  const metadata = await server.issuer.metadata();
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: adminRedirectUri(server),
    resource: server.resource,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.clientSecret === undefined) {
    form.set('client_id', client.clientId);
  } else {
    headers.authorization = basicAuthorization({ clientId: client.clientId, clientSecret: client.clientSecret });
  }
  let response: Response;
  try {
    response = await fetch(metadata.token_endpoint ?? '', {
      method: 'POST',
      headers,
      body: form.toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new IssuerUnavailable(
      `The token endpoint of OAUTH_ISSUER ${server.issuer.url} cannot be reached; sign in again in a moment.`,
    );
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const refused = TokenError.safeParse(body);
    if (response.status >= 500 || !refused.success) {
      throw new IssuerUnavailable(
        `The token endpoint of OAUTH_ISSUER ${server.issuer.url} answered HTTP ${response.status}; sign in again in a moment.`,
      );
    }
    throw new Unauthorized(
      `${server.issuer.url} refused to finish this sign-in (${refused.data.error.slice(0, 60)}); sign in again, and check that OAUTH_ADMIN_CLIENT_ID's redirect URI is ${adminRedirectUri(server)}.`,
    );
  }
  const answer = TokenAnswer.safeParse(body);
  if (!answer.success || answer.data.token_type.toLowerCase() !== 'bearer') {
    throw new IssuerUnavailable(
      `The token endpoint of OAUTH_ISSUER ${server.issuer.url} answered no bearer access token; check the issuer's set-up of OAUTH_ADMIN_CLIENT_ID.`,
    );
  }
  // A person without the operator's scope hears it now, not from the first call of the page.
  await server.principalOf(answer.data.access_token, 'admin');
  return { token: answer.data.access_token, expires_in: answer.data.expires_in };
}
