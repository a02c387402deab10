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
  const issuer = config.oauthIssuer;
  return [
    `  Token:    ${bearer ? 'set' : issuer ? 'none' : 'none (loopback only)'}${tokensFile ? ' + TOKENS_FILE' : ''}`,
    ...(issuer
      ? [`  OAuth:    ${issuer} (agents need the scope ${config.oauthAgentScope}, operators ${config.oauthAdminScope})`]
      : []),
    `  Admin:    ${
      admin
        ? `token set${issuer ? ', or sign in through the issuer' : ''}`
        : issuer
          ? 'sign in through the issuer'
          : adminCode
            ? `${base}/admin/#code=${adminCode} (open it in your browser: works once, for ${lifetime})`
            : config.sessionStore === 'redis' && !tokensFile
              ? 'closed (set ADMIN_TOKEN: a one-time link cannot sign in across replicas)'
              : 'closed (set ADMIN_TOKEN)'
    }`,
    `  Control:  ${controlLine(config, adminCode !== undefined)}`,
  ];
}

/**
 * Who may take Control of a browser (control-policy.ts), in the operator's words. An admin
 * credential that is also the agents' token proves no person: then nobody may, until ADMIN_TOKEN
 * is one of its own, or an operator signs in through OAUTH_ISSUER.
 */
function controlLine(config: Config, adminLink: boolean): string {
  if (config.controlBy === 'off') {
    return 'off (CONTROL_BY=off: browsers are watched, never taken)';
  }
  const apps = config.controlBy === 'apps' ? ', and the live app of hosts whose token says control: true' : '';
  const personal = adminLink || (config.adminToken !== undefined && config.adminToken !== config.authToken);
  if (config.oauthIssuer) {
    // An access token with the operators' scope alone is a person's, whatever the static tokens are.
    return `an operator signed in through the issuer on the admin page${personal ? ', or ADMIN_TOKEN' : ''}${apps}`;
  }
  return personal
    ? `a person on the admin page${apps}`
    : `nobody on the admin page: its credential is the agents' token; set ADMIN_TOKEN to one of its own${apps ? ` (${apps.slice(2)} may)` : ''}`;
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

/** The embedded Grid's watchable browsers, or why it has none. */
export function liveLine(grid: { liveViews: number; liveViewMissing?: string; browsers: readonly string[] }): string {
  if (grid.liveViewMissing !== undefined) {
    return `none: ${grid.liveViewMissing}`;
  }
  return grid.liveViews === 0
    ? 'none (EMBEDDED_LIVE_VIEWS=0)'
    : `${grid.liveViews} watchable ${grid.browsers.join(' and ')} slot${grid.liveViews * grid.browsers.length > 1 ? 's' : ''}, each sandboxed with its window locked`;
}
