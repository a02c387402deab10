import { IssuerUnavailable, Unauthorized } from '../errors.js';
import { jose } from '../lazy.js';
import { Introspection, type ClientCredentials } from './introspection.js';
import type { Issuer } from './issuer.js';

/** Who an access token speaks for, once checked: its subject, scopes and claims. */
export interface AccessGrant {
  subject: string;
  scopes: ReadonlySet<string>;
  claims: Readonly<Record<string, unknown>>;
}

/**
 * The signature algorithms a token may use: asymmetric only. `none` carries no signature, and an
 * HMAC's key is a secret the issuer shares, so its verification key would sign tokens too.
 */
export const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** Seconds by which the issuer's clock and ours may disagree on `exp` and `nbf`. */
export const CLOCK_SKEW_S = 5;

const MAX_TOKEN_CHARS = 8192;

export interface AccessTokenOptions {
  issuer: Issuer;
  /** this server's canonical URL (RFC 8707): the audience every token must name */
  resource: string;
  /** this server's client at the issuer, to introspect (RFC 7662) tokens that are not JWTs */
  introspection?: ClientCredentials;
  now?: () => number;
}

/**
 * Checks the access tokens OAUTH_ISSUER issues, as the MCP authorization spec asks of a resource
 * server: a JWT by the issuer's keys, `iss`, `aud` (this server's URL), `exp` and `nbf`, with an
 * allow-list of algorithms; any other token by introspection. Every refusal is a 401 whose
 * sentence says what was wrong and what to do; the issuer being unreachable is a 503.
 */
export class AccessTokens {
  private readonly audiences: string[];
  private readonly introspection: Introspection | undefined;
  private readonly now: () => number;

  constructor(private readonly options: AccessTokenOptions) {
    this.now = options.now ?? Date.now;
    // A client that parsed the URL sends `https://host/` for `https://host`: both name this server.
    const bare = options.resource.replace(/\/+$/, '');
    this.audiences = [bare, `${bare}/`];
    this.introspection = options.introspection
      ? new Introspection(options.issuer, options.introspection, this.now)
      : undefined;
  }

  get resource(): string {
    return this.options.resource;
  }

  async verify(token: string): Promise<AccessGrant> {
    if (token.length > MAX_TOKEN_CHARS) {
      throw new Unauthorized(
        `This access token is longer than ${MAX_TOKEN_CHARS} characters; send the access token itself.`,
      );
    }
    return isJwt(token) ? this.verifyJwt(token) : this.introspect(token);
  }

  /** Whether this server would check `token` with the issuer at all: a JWT, or anything when it introspects. */
  couldCheck(token: string): boolean {
    return isJwt(token) || this.options.introspection !== undefined;
  }

  private async verifyJwt(token: string): Promise<AccessGrant> {
    const { issuer } = this.options;
    const { jwtVerify, decodeProtectedHeader, errors } = await jose();
    const [keys, metadata] = await Promise.all([issuer.keys(), issuer.metadata()]);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: metadata.issuer,
        audience: this.audiences,
        algorithms: [...ALGORITHMS],
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.now()),
      }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) {
        throw this.expired(err.payload.exp);
      }
      if (err instanceof errors.JWTClaimValidationFailed) {
        throw this.claimRefused(err.claim, err.reason, err.payload, metadata.issuer);
      }
      if (err instanceof errors.JOSEAlgNotAllowed) {
        const alg = headerAlg(token, decodeProtectedHeader);
        throw new Unauthorized(
          `This access token is signed with ${quote(alg)}, which this server does not take (it takes ${ALGORITHMS.join(', ')}); sign in again through ${issuer.url} for a signed token.`,
        );
      }
      if (
        err instanceof errors.JWKSNoMatchingKey ||
        err instanceof errors.JWKSMultipleMatchingKeys ||
        err instanceof errors.JWSSignatureVerificationFailed
      ) {
        throw new Unauthorized(
          `This access token is not signed by a key ${issuer.url} publishes (a key it has rotated away, or another issuer's); sign in again for a new token.`,
        );
      }
      if (
        err instanceof errors.JWSInvalid ||
        err instanceof errors.JWTInvalid ||
        err instanceof errors.JOSENotSupported
      ) {
        throw new Unauthorized(
          `This access token is not a well-formed JWT; send the access token ${issuer.url} issued (not its ID token).`,
        );
      }
      // The key set could not be fetched (timeout, an error status, not JSON): the issuer's fault, not the token's.
      throw new IssuerUnavailable(
        `The signing keys of OAUTH_ISSUER ${issuer.url} cannot be read now, so no access token can be checked; retry in a moment.`,
      );
    }
    return grantOf(payload);
  }

  private expired(exp: unknown): Unauthorized {
    return new Unauthorized(`This access token expired at ${timeOf(exp)}; refresh it, or sign in again.`);
  }

  private claimRefused(claim: string, reason: string, payload: Record<string, unknown>, issuer: string): Unauthorized {
    if (reason === 'missing' && claim === 'aud') {
      return this.wrongAudience('no audience');
    }
    if (reason === 'missing') {
      return new Unauthorized(
        `This access token has no "${claim}" claim, which this server requires; ask ${issuer} for access tokens (RFC 9068) with an expiry and a subject.`,
      );
    }
    switch (claim) {
      case 'iss':
        return new Unauthorized(
          `This access token was issued by ${quote(payload.iss)}, not by OAUTH_ISSUER ${issuer}; sign in through ${issuer}.`,
        );
      case 'aud':
        return this.wrongAudience(payload.aud);
      case 'nbf':
        return new Unauthorized(
          `This access token is not valid until ${timeOf(payload.nbf)}; check the clocks of the issuer and this server, or wait until then.`,
        );
      default:
        return new Unauthorized(
          `This access token's "${claim}" claim is not valid; sign in again through ${issuer} for a new token.`,
        );
    }
  }

  private wrongAudience(aud: unknown): Unauthorized {
    return new Unauthorized(
      `This access token is for ${quote(aud)}, not for this server (${this.resource}); ask for a token with resource=${this.resource} (RFC 8707).`,
    );
  }

  /** RFC 7662: the issuer says whether the token is active, and what it grants. */
  private async introspect(token: string): Promise<AccessGrant> {
    if (!this.introspection) {
      throw new Unauthorized(
        `This access token is not a JWT, and this server introspects no tokens (OAUTH_CLIENT_ID is unset); ask ${this.options.issuer.url} for JWT access tokens for ${this.resource}, or set OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET.`,
      );
    }
    const { answer: claims, issuer } = await this.introspection.answer(token);
    const nowS = this.now() / 1000;
    if (!claims.active) {
      throw new Unauthorized(
        `${this.options.issuer.url} says this access token is not active (expired, revoked or unknown); refresh it, or sign in again.`,
      );
    }
    if (claims.iss !== undefined && claims.iss !== issuer) {
      throw this.claimRefused('iss', 'check_failed', claims, issuer);
    }
    const audiences = claims.aud === undefined ? [] : [claims.aud].flat();
    if (!audiences.some((aud) => this.audiences.includes(aud))) {
      throw this.wrongAudience(claims.aud ?? 'no audience');
    }
    if (claims.exp === undefined || claims.sub === undefined) {
      throw this.claimRefused(claims.exp === undefined ? 'exp' : 'sub', 'missing', claims, issuer);
    }
    if (claims.exp <= nowS - CLOCK_SKEW_S) {
      throw this.expired(claims.exp);
    }
    if (claims.nbf !== undefined && claims.nbf > nowS + CLOCK_SKEW_S) {
      throw this.claimRefused('nbf', 'check_failed', claims, issuer);
    }
    if (claims.token_type !== undefined && claims.token_type.toLowerCase() !== 'bearer') {
      throw new Unauthorized(
        `This is a ${quote(claims.token_type)} token, not an access token; send the access token ${this.options.issuer.url} issued.`,
      );
    }
    return grantOf(claims);
  }
}

function isJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

/** Scopes as RFC 9068 (`scope`, space-separated) or as some issuers write them (`scp`, a string or a list). */
function grantOf(claims: Record<string, unknown>): AccessGrant {
  const scopes = [claims.scope, claims.scp].flatMap((value) =>
    typeof value === 'string'
      ? value.split(' ')
      : Array.isArray(value)
        ? value.filter((s): s is string => typeof s === 'string')
        : [],
  );
  return { subject: String(claims.sub), scopes: new Set(scopes.filter((s) => s !== '')), claims };
}

function headerAlg(token: string, decode: (token: string) => { alg?: string }): unknown {
  try {
    return decode(token).alg;
  } catch {
    return undefined;
  }
}

/** A value from the token, said back short: the caller's own text, never a page's. */
function quote(value: unknown): string {
  return JSON.stringify(typeof value === 'string' ? value.slice(0, 200) : value)?.slice(0, 200) ?? 'nothing';
}

function timeOf(seconds: unknown): string {
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString()
    : 'an unreadable time';
}
