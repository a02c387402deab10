import { createHash } from 'node:crypto';
import { z } from 'zod';
import { IssuerUnavailable } from '../errors.js';
import type { Issuer } from './issuer.js';

/** The claims read from an introspection answer (RFC 7662 §2.2); it may carry more. */
const Answer = z.looseObject({
  active: z.boolean(),
  scope: z.string().optional(),
  sub: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  iss: z.string().optional(),
  exp: z.number().optional(),
  nbf: z.number().optional(),
  token_type: z.string().optional(),
});
export type IntrospectionAnswer = z.infer<typeof Answer>;

/** A client of this server's at the issuer, authenticating with client_secret_basic. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** An active answer is kept this long at most (never past the token's expiry): each call would otherwise ask the issuer. */
const CACHE_MS = 60_000;
const CACHE_ENTRIES = 10_000;

/** RFC 6749 §2.3.1: each half is form-encoded before the two are joined for Basic. */
export function basicAuthorization(client: ClientCredentials): string {
  const encode = (text: string) => encodeURIComponent(text).replaceAll('%20', '+');
  return `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}`;
}

/**
 * Asks the issuer about a token that is not a JWT (RFC 7662), as this server's own client.
 * Active answers are cached by the token's digest, briefly; the caller checks what they say.
 */
export class Introspection {
  private readonly cache = new Map<string, { answer: IntrospectionAnswer; until: number }>();

  constructor(
    private readonly issuer: Issuer,
    private readonly client: ClientCredentials,
    private readonly now: () => number,
  ) {}

  /** The issuer's answer, and the issuer's own name for itself (what `iss` must say). */
  async answer(token: string): Promise<{ answer: IntrospectionAnswer; issuer: string }> {
    const metadata = await this.issuer.metadata();
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = this.cache.get(key);
    if (cached && cached.until > this.now()) {
      return { answer: cached.answer, issuer: metadata.issuer };
    }
    this.cache.delete(key);
    const endpoint = metadata.introspection_endpoint;
    if (!endpoint) {
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${this.issuer.url} publishes no introspection_endpoint, so a token that is not a JWT cannot be checked; ask it for JWT access tokens.`,
      );
    }
    const parsed = Answer.safeParse(await this.post(endpoint, token));
    if (!parsed.success) {
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${this.issuer.url} answered introspection with no "active" field; check OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET.`,
      );
    }
    const answer = parsed.data;
    if (answer.active && answer.exp !== undefined) {
      if (this.cache.size >= CACHE_ENTRIES) {
        // The oldest answer goes first (a Map iterates in insertion order).
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) {
          this.cache.delete(oldest);
        }
      }
      this.cache.set(key, { answer, until: Math.min(this.now() + CACHE_MS, answer.exp * 1000) });
    }
    return { answer, issuer: metadata.issuer };
  }

  private async post(endpoint: string, token: string): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: basicAuthorization(this.client),
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(5_000),
      });
    } catch {
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${this.issuer.url}'s introspection endpoint cannot be reached, so this token cannot be checked; retry in a moment.`,
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new IssuerUnavailable(
        `OAUTH_ISSUER ${this.issuer.url} refused to introspect (HTTP ${response.status}); check OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET.`,
      );
    }
    const body: unknown = await response.json().catch(() => undefined);
    return body;
  }
}
