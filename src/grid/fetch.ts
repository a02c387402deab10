import { GridUnavailable } from '../errors.js';

/**
 * A request to the Grid. Node's fetch refuses a URL with userinfo, so a Grid URL's credentials
 * travel as a Basic authorization header instead.
 */
export async function gridFetch(url: string, init: RequestInit): Promise<Response> {
  const { address, authorization } = splitCredentials(url);
  const headers = new Headers(init.headers);
  if (authorization !== undefined) {
    headers.set('authorization', authorization);
  }
  try {
    return await fetch(address, { ...init, headers, signal: AbortSignal.timeout(30_000) });
  } catch {
    throw new GridUnavailable(
      'The Selenium Grid is unreachable; check GRID_URL and that the Grid is running, then retry.',
    );
  }
}

/** A URL without its userinfo, and that userinfo as a Basic authorization header value. */
export function splitCredentials(url: string): { address: string; authorization?: string } {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') {
    return { address: url };
  }
  const userinfo = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { address: parsed.toString(), authorization: `Basic ${Buffer.from(userinfo).toString('base64')}` };
}

/** The URL as it may be shown: scheme, host, port and path, never its credentials. */
export function withoutCredentials(url: string): string {
  return splitCredentials(url).address.replace(/\/$/, '');
}
