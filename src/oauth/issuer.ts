import type { JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { IssuerUnavailable } from '../errors.js';
import { jose } from '../lazy.js';

/** What this server reads of the issuer's metadata (RFC 8414, OpenID Connect Discovery); the rest is ignored. */
const Metadata = z.looseObject({
  issuer: z.string(),
  jwks_uri: z.url().optional(),
  authorization_endpoint: z.url().optional(),
  token_endpoint: z.url().optional(),
  introspection_endpoint: z.url().optional(),
  registration_endpoint: z.url().optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
});
export type IssuerMetadata = z.infer<typeof Metadata>;

/** How long one request to the issuer may take: a request waiting on it waits this long at most. */
const REQUEST_TIMEOUT_MS = 5_000;
/** After a failed discovery, requests answer 503 at once for this long rather than each asking again. */
const RETRY_AFTER_MS = 5_000;
/**
 * After the keys were fetched, a token naming a key not among them fetches them again only after
 * this long: an issuer's new key is taken within seconds, and forged `kid`s cost the issuer at
 * most one request each 5 s (jose's default, 30 s, kept a rotated issuer's new tokens out that long).
 */
const KEYS_COOLDOWN_MS = 5_000;
/** Metadata is read again after this long: an issuer may move its endpoints or keys address. */
const METADATA_MAX_AGE_MS = 60 * 60_000;

export interface IssuerOptions {
  /** see KEYS_COOLDOWN_MS */
  keysCooldownMs?: number;
  now?: () => number;
}

/**
 * The authorization server named by OAUTH_ISSUER, as a resource server sees it: its metadata,
 * found from the issuer URL alone, and its signing keys, cached and fetched again when a token
 * names a key not among them (jose's remote key set). Nothing is fetched until first needed, so
 * the server starts while the issuer is down and answers 503 until it is back.
 */
export class Issuer {
  private found: { metadata: IssuerMetadata; at: number } | undefined;
  private pending: Promise<IssuerMetadata> | undefined;
  private failedAt = -Infinity;
  private lastFailure = '';
  private keySet: { uri: string; get: JWTVerifyGetKey } | undefined;
  private readonly now: () => number;

  constructor(
    readonly url: string,
    private readonly options: IssuerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The metadata, discovered once (and again after an hour); throws IssuerUnavailable naming why. */
  async metadata(): Promise<IssuerMetadata> {
    const found = this.found;
    if (found && this.now() - found.at < METADATA_MAX_AGE_MS) {
      return found.metadata;
    }
    if (!found && this.now() - this.failedAt < RETRY_AFTER_MS) {
      throw new IssuerUnavailable(this.lastFailure);
    }
    this.pending ??= discover(this.url).then(
      (metadata) => {
        this.found = { metadata, at: this.now() };
        this.pending = undefined;
        return metadata;
      },
      (err: unknown) => {
        this.pending = undefined;
        if (found) {
          // A known issuer that fails to answer again keeps its last metadata: its keys still verify.
          this.found = { metadata: found.metadata, at: this.now() };
          return found.metadata;
        }
        this.failedAt = this.now();
        this.lastFailure = err instanceof IssuerUnavailable ? err.message : unavailable(this.url, 'fails');
        throw new IssuerUnavailable(this.lastFailure);
      },
    );
    return this.pending;
  }

  /** The issuer's signing keys, for jose's jwtVerify: cached, and fetched again on an unknown `kid`. */
  async keys(): Promise<JWTVerifyGetKey> {
    const { jwks_uri: uri } = await this.metadata();
    if (!uri) {
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${this.url} publishes no jwks_uri in its metadata, so no JWT access token can be checked; set OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET to introspect its tokens instead.`,
      );
    }
    if (this.keySet?.uri !== uri) {
      const { createRemoteJWKSet } = await jose();
      this.keySet = {
        uri,
        get: createRemoteJWKSet(new URL(uri), {
          timeoutDuration: REQUEST_TIMEOUT_MS,
          cooldownDuration: this.options.keysCooldownMs ?? KEYS_COOLDOWN_MS,
          cacheMaxAge: 10 * 60_000,
        }),
      };
    }
    return this.keySet.get;
  }
}

/**
 * RFC 8414 §3.1 inserts the well-known name before the issuer's path; OpenID Connect Discovery
 * appends it. Both are tried, OAuth's first, and the document must name the issuer it was asked
 * for (RFC 8414 §3.3): a document naming another would hand its keys to that one's tokens.
 */
export async function discover(issuer: string): Promise<IssuerMetadata> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const addresses = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
  let reached = false;
  for (const address of [...new Set(addresses)]) {
    let response: Response;
    try {
      response = await fetch(address, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch {
      continue;
    }
    reached = true;
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const parsed = Metadata.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${issuer} answers ${address} with no valid metadata (an "issuer" field is required); check that OAUTH_ISSUER is the issuer URL itself.`,
      );
    }
    if (!sameIssuer(parsed.data.issuer, issuer)) {
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${issuer} publishes metadata for another issuer, ${JSON.stringify(parsed.data.issuer.slice(0, 200))}; set OAUTH_ISSUER to exactly that value if it is the one you mean.`,
      );
    }
    return parsed.data;
  }
  throw new IssuerUnavailable(unavailable(issuer, reached ? 'publishes no metadata' : 'cannot be reached'));
}

/** `https://a/` and `https://a` are one issuer as an operator types it; the metadata's spelling is then the one tokens carry. */
function sameIssuer(published: string, configured: string): boolean {
  return published.replace(/\/+$/, '') === configured.replace(/\/+$/, '');
}

function unavailable(issuer: string, what: string): string {
  return `OAUTH_ISSUER ${issuer} ${what} (tried its /.well-known/oauth-authorization-server and openid-configuration), so no access token can be checked; retry once it answers, or fix OAUTH_ISSUER.`;
}
