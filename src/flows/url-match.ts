import { MAX_URL_CHARS } from '../limits.js';
import { globMatches } from '../glob.js';

/**
 * A flow's `urls` globs match the whole URL; `*` is any run of characters. A URL with no
 * path matches as if it ended in `/`, so `https://example.com/*` covers `https://example.com`.
 * A URL longer than any a flow is written for matches only a glob of nothing but `*`.
 */
export function urlMatches(globs: readonly string[] | undefined, url: string): boolean {
  if (!globs || globs.length === 0) {
    return true;
  }
  if (url.length > MAX_URL_CHARS) {
    // A page can make its own address megabytes long; matching is linear, but not free.
    return globs.some((glob) => glob.replaceAll('*', '') === '');
  }
  const candidates = [url, withSlash(url)];
  return globs.some((glob) => candidates.some((candidate) => globMatches(glob, candidate)));
}

function withSlash(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname === '/' && !url.endsWith('/') ? `${url}/` : url;
  } catch {
    return url;
  }
}
