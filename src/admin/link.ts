import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The admin link a server without any token prints for the person at its terminal (the Jupyter
 * way): one code, good once and for a short while, exchanged for an admin session that lives in
 * this process's memory only, so it ends when the server stops. Nothing here is ever logged.
 */
export class AdminLink {
  /** sha256 of the code while it may still be used; undefined once used */
  private code: Buffer | undefined;
  private readonly expiresAt: number;
  /** sha256 of the one session the code was exchanged for */
  private session: Buffer | undefined;

  private constructor(
    code: string,
    ttlMs: number,
    private readonly now: () => number,
  ) {
    this.code = digest(code);
    this.expiresAt = now() + ttlMs;
  }

  /** A fresh link and its code (256 random bits, base64url): the code is the caller's to print, once. */
  static issue(ttlMs: number, now: () => number = Date.now): { link: AdminLink; code: string } {
    const code = randomBytes(32).toString('base64url');
    return { link: new AdminLink(code, ttlMs, now), code };
  }

  /** The session token for the right code, the first time, before it expires; otherwise undefined. */
  exchange(given: string): string | undefined {
    const expected = this.code;
    // Compared as digests: equal lengths whatever was sent, and constant time.
    if (!expected || !timingSafeEqual(digest(given), expected)) {
      return undefined;
    }
    // Used, even when it came too late: a code never works twice.
    this.code = undefined;
    if (this.now() > this.expiresAt) {
      return undefined;
    }
    const token = randomBytes(32).toString('base64url');
    this.session = digest(token);
    return token;
  }

  /** Whether a bearer token is the session this link was exchanged for. */
  accepts(token: string | undefined): boolean {
    return this.session !== undefined && token !== undefined && timingSafeEqual(digest(token), this.session);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
