import type { Config } from './config.js';

/** What `serve` prints about access and clients: the lines that must never hold a token value. */

/** The workspace the banner's client lines name: any name keeps a browser between conversations. */
export const BANNER_WORKSPACE = 'default';

/**
 * Whether tokens are set, from booleans only: a banner ends up in terminals, CI logs and
 * screenshots, so no token value is ever within reach of its template. The one secret it prints
 * is the admin link's code, on purpose, for the person at this terminal: single use, short-lived.
 */
export function accessLines(config: Config, base: string, adminCode: string | undefined): string[] {
  const bearer = config.authToken !== undefined;
  const tokensFile = config.tokensFile !== undefined;
  const admin = config.adminToken !== undefined || bearer;
  const ttl = config.adminLinkTtl;
  const lifetime = ttl % 60 === 0 ? `${ttl / 60} min` : `${ttl} s`;
  return [
    `  Token:    ${bearer ? 'set' : 'none (loopback only)'}${tokensFile ? ' + TOKENS_FILE' : ''}`,
    `  Admin:    ${
      admin
        ? 'token set'
        : adminCode
          ? `${base}/admin/#code=${adminCode} (open it in your browser: works once, for ${lifetime})`
          : config.sessionStore === 'redis' && !tokensFile
            ? 'closed (set ADMIN_TOKEN: a one-time link cannot sign in across replicas)'
            : 'closed (set ADMIN_TOKEN)'
    }`,
  ];
}

/**
 * A client set-up to paste (README "Connect your client" has the others). The URL names a
 * workspace, so a second conversation finds the browser of the first. The token is a
 * placeholder: the banner never holds a token value.
 */
export function clientLines(mcpUrl: string, withToken: boolean): string[] {
  const header = 'Authorization: Bearer <MCP_AUTH_TOKEN>';
  const json = {
    mcpServers: {
      'selenium-flow': { url: mcpUrl, ...(withToken ? { headers: { Authorization: 'Bearer <MCP_AUTH_TOKEN>' } } : {}) },
    },
  };
  return [
    // Quoted: zsh refuses an unmatched `?` glob, and the URL carries ?workspace=.
    `  Claude Code: claude mcp add --transport http selenium-flow "${mcpUrl}"${withToken ? ` --header "${header}"` : ''}`,
    `  Cursor and others (mcp.json): ${JSON.stringify(json)}`,
  ];
}
