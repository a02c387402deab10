import { z } from 'zod';
import { IssuerUnavailable } from '../errors.js';
import { ALGORITHMS } from './access-tokens.js';
import { discover } from './issuer.js';

const KeySet = z.object({
  keys: z.array(z.looseObject({ kty: z.string(), use: z.string().optional(), alg: z.string().optional() })),
});

/** What doctor says of OAUTH_ISSUER: whether tokens can be checked against it, and what it offers. */
export interface IssuerReport {
  ok: boolean;
  detail: string;
}

/**
 * The checks a server makes of its issuer at the first token, made now: its metadata (naming
 * itself), its signing keys (at least one this server can verify with), and what clients need
 * of it: authorization code with PKCE S256, and whether clients may register themselves (RFC 7591).
 */
export async function checkIssuer(issuer: string, introspects: boolean): Promise<IssuerReport> {
  let metadata;
  try {
    metadata = await discover(issuer);
  } catch (err) {
    return { ok: false, detail: err instanceof IssuerUnavailable ? err.message : String(err) };
  }
  const notes: string[] = [];
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    notes.push('its metadata does not say it takes PKCE S256, which MCP clients require');
  }
  notes.push(
    metadata.registration_endpoint
      ? 'clients may register themselves (RFC 7591)'
      : 'no dynamic client registration: register each MCP client with the issuer yourself',
  );
  if (introspects && !metadata.introspection_endpoint) {
    return { ok: false, detail: `${issuer} publishes no introspection_endpoint, which OAUTH_CLIENT_ID is set for` };
  }
  if (!metadata.jwks_uri) {
    return introspects
      ? { ok: true, detail: `${issuer}: no signing keys published, tokens are introspected; ${notes.join('; ')}` }
      : {
          ok: false,
          detail: `${issuer} publishes no jwks_uri: set OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET to introspect its tokens`,
        };
  }
  let keys;
  try {
    const response = await fetch(metadata.jwks_uri, { redirect: 'error', signal: AbortSignal.timeout(5_000) });
    keys = KeySet.parse(await response.json()).keys;
  } catch {
    return {
      ok: false,
      detail: `${issuer}'s signing keys (${metadata.jwks_uri}) cannot be read as a JSON Web Key Set`,
    };
  }
  const accepted = new Set<string>(ALGORITHMS);
  const signing = keys.filter(
    (key) => key.use !== 'enc' && ['RSA', 'EC', 'OKP'].includes(key.kty) && (!key.alg || accepted.has(key.alg)),
  );
  if (signing.length === 0) {
    return {
      ok: false,
      detail: `${issuer} publishes no signing key this server can verify with (it takes ${ALGORITHMS.join(', ')})`,
    };
  }
  const algs = [...new Set(signing.map((key) => key.alg ?? key.kty))].join(', ');
  return {
    ok: true,
    detail: `${issuer} publishes its metadata and ${signing.length} signing key${signing.length === 1 ? '' : 's'} (${algs}); ${notes.join('; ')}`,
  };
}
