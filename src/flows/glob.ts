import { globMatches } from '../glob.js';

/**
 * A flow's `urls` globs match the whole URL; `*` is any run of characters. A URL with no
 * path matches as if it ended in `/`, so `https://example.com/*` covers `https://example.com`.
 */
export function urlMatches(globs: readonly string[] | undefined, url: string): boolean {
  if (!globs || globs.length === 0) {
    return true;
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
