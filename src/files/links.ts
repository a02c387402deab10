import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Forbidden } from '../errors.js';
import type { Section } from './names.js';

export interface SignedLink {
  path: string;
  exp: number;
  sig: string;
}

export const SIGNED_PREFIX = '/files/signed';

/**
 * Links that open one file without the bearer token until they expire: an HMAC over the
 * section, workspace, name and expiry. One implementation for all three sections.
 */
export class LinkSigner {
  private readonly key: Buffer;

  /**
   * The key must be the same on every replica, or a link one replica handed out would be a
   * 403 on the next: so it is derived from LINK_SECRET, or else from the bearer token that
   * every replica already shares (never the token itself: a signature must not be a way to
   * test guesses of it). Only a server with neither — loopback, no auth, one process — uses a
   * random key, and its links then end with the process.
   */
  constructor(
    secret: string | undefined,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    const base = secret ?? randomBytes(32).toString('hex');
    this.key = createHmac('sha256', base).update('selenium-flow file links v1').digest();
  }

  sign(section: Section, workspace: string, name: string): SignedLink {
    const exp = Math.floor(this.now() / 1000) + this.ttlSeconds;
    const path = `${SIGNED_PREFIX}/${section}/${encodeURIComponent(workspace)}/${encodeURIComponent(name)}`;
    return { path, exp, sig: this.signature(section, workspace, name, exp) };
  }

  /** The URL of a signed link, relative unless a public base is given. */
  url(section: Section, workspace: string, name: string, base = ''): string {
    const link = this.sign(section, workspace, name);
    return `${base}${link.path}?exp=${link.exp}&sig=${link.sig}`;
  }

  /** Passes only an untouched, unexpired link; anything else is a 403. */
  verify(section: string, workspace: string, name: string, exp: unknown, sig: unknown): void {
    const expiry = typeof exp === 'string' && /^\d{1,12}$/.test(exp) ? Number(exp) : NaN;
    const given = Buffer.from(typeof sig === 'string' ? sig : '');
    const expected = Buffer.from(this.signature(section, workspace, name, expiry));
    if (Number.isNaN(expiry) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new Forbidden('This link is not valid (changed or incomplete); list the files again for a fresh link.');
    }
    if (expiry * 1000 < this.now()) {
      throw new Forbidden('This link has expired; list the files again for a fresh link.');
    }
  }

  private signature(section: string, workspace: string, name: string, exp: number): string {
    // Lengths first, so no two different (section, workspace, name) tuples share one message.
    const parts = [section, workspace, name, String(exp)];
    const message = parts.map((p) => `${Buffer.byteLength(p)}:${p}`).join('');
    return createHmac('sha256', this.key).update(message).digest('base64url');
  }
}
