/**
 * The leash: a secret that declares allowed URLs may be typed only on a page whose origin
 * (scheme, host and port) is exactly one of them. Never a substring or suffix match:
 * https://example.com.evil.test is not https://example.com.
 */
import { z } from 'zod';

/** A declaration as the operator wrote it, parsed: origins, or the lines that make it unusable. */
export interface AllowedUrls {
  /** false: no declaration at all, which means no restriction */
  declared: boolean;
  origins: string[];
  /** one bad line makes the whole declaration unusable (fails closed) */
  rejected: RejectedLine[];
  /** the declaration exists but could not be read, or lists nothing */
  problem?: string;
}

/** A refused line: its number and what was wrong, never the line itself (it may hold a credential). */
export const rejectedLine = z.object({
  line: z.number().int().describe('the line number in the declaration'),
  reason: z.string(),
});

export type RejectedLine = z.infer<typeof rejectedLine>;

export const UNRESTRICTED: AllowedUrls = { declared: false, origins: [], rejected: [] };

/** One origin per line; blank lines and `#` comments are skipped. */
export function parseAllowedUrls(text: string): AllowedUrls {
  const origins: string[] = [];
  const rejected: RejectedLine[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) {
      continue;
    }
    const parsed = parseOriginLine(line);
    if ('reason' in parsed) {
      rejected.push({ line: index + 1, reason: parsed.reason });
    } else if (!origins.includes(parsed.origin)) {
      origins.push(parsed.origin);
    }
  }
  if (origins.length === 0 && rejected.length === 0) {
    return { declared: true, origins, rejected, problem: 'its allowed URLs declaration lists no origin' };
  }
  return { declared: true, origins, rejected };
}

/** A declaration that exists but cannot be read restricts to nowhere: failing open would drop the leash. */
export function unreadableDeclaration(): AllowedUrls {
  return { declared: true, origins: [], rejected: [], problem: 'its allowed URLs declaration could not be read' };
}

function parseOriginLine(line: string): { origin: string } | { reason: string } {
  let url: URL;
  try {
    url = new URL(line);
  } catch {
    return { reason: 'is not an absolute URL (write an origin such as https://app.example.com)' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { reason: 'is not an http or https origin' };
  }
  const found = [
    url.username !== '' || url.password !== '' ? 'userinfo' : '',
    url.pathname !== '/' && url.pathname !== '' ? 'a path' : '',
    url.search !== '' ? 'a query' : '',
    url.hash !== '' ? 'a fragment' : '',
  ].filter(Boolean);
  if (found.length > 0) {
    return { reason: `carries ${found.join(' and ')}; an origin is only scheme://host[:port]` };
  }
  return { origin: url.origin };
}

/** scheme://host[:port] of a page, or "null" for pages without one (about:blank, data:). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

export function isUsable(allowed: AllowedUrls): boolean {
  return (
    !allowed.declared || (allowed.problem === undefined && allowed.rejected.length === 0 && allowed.origins.length > 0)
  );
}

/** Why a declaration stops a secret being used at all, with the fix; undefined when it does not. */
export function unusableReason(allowed: AllowedUrls): string | undefined {
  if (isUsable(allowed)) {
    return undefined;
  }
  if (allowed.rejected.length > 0) {
    const lines = allowed.rejected.map((r) => `line ${r.line} ${r.reason}`).join('; ');
    return `its allowed URLs are unusable (${lines}); its owner must fix those lines, since one bad line refuses every page`;
  }
  return `${allowed.problem ?? 'its allowed URLs are unusable'}; its owner must fix it`;
}

/** Exact origin equality: the only match there is. */
export function allows(allowed: AllowedUrls, origin: string): boolean {
  if (!allowed.declared) {
    return true;
  }
  return isUsable(allowed) && origin !== 'null' && allowed.origins.includes(origin);
}
