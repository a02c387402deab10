/**
 * A host that is a web page (the ext-apps basic-host; any MCP client running in a browser) calls
 * /mcp from its own origin. The browser lets it send MCP's headers, and read the answer and its
 * Mcp-Session-Id, only when the server says so. The guard (http/guard.ts) has refused every
 * Origin but this server's own pages, PUBLIC_URL's and ALLOWED_ORIGINS' before a route's own hooks
 * run, so an Origin seen there is one whose pages may call this server: it is said back, and no
 * other. A refusal before them (the guard's 403, a 401) says nothing to a page.
 */

/** What a page may send: MCP's own headers, the bearer token, and the workspace. */
const ALLOW_HEADERS = [
  'accept',
  'authorization',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
  'x-request-id',
  'x-workspace',
].join(', ');

/** What a page may read beside the body: its session, where to sign in, the request's id. */
const EXPOSE_HEADERS = ['mcp-session-id', 'www-authenticate', 'x-request-id'].join(', ');

/** The headers an answer to `origin` carries; none for a request that is not a page's. */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  return origin === undefined
    ? {}
    : { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS, vary: 'Origin' };
}

/** The answer to a page's preflight (OPTIONS): the methods and headers /mcp takes. */
export function preflightHeaders(origin: string | undefined): Record<string, string> {
  return origin === undefined
    ? {}
    : {
        ...corsHeaders(origin),
        'access-control-allow-methods': 'GET, POST, DELETE',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': '600',
      };
}
