import { z } from 'zod';
import { setting, type Command, type Setting } from '../setting.js';
import { patternsProblem } from './workspaces.js';

/**
 * The OAuth settings, one entry each of SETTINGS (src/settings.ts spreads them in: --help, the
 * README's table and the config file see them there), kept here with their rules.
 */

/** Whether an http(s) URL names this machine (a test's issuer may be plain http there, nowhere else). */
function loopbackUrl(url: string): boolean {
  const host = URL.parse(url)?.hostname.replace(/^\[(.*)\]$/, '$1') ?? '';
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const issuerUrl = z
  .url({ protocol: /^https?$/, error: 'must be an issuer URL such as https://login.example.com/realms/agents' })
  .refine(
    (url) => url.startsWith('https:') || loopbackUrl(url),
    'must be https (http only on a loopback address, for a test issuer)',
  )
  .refine(
    (url) => !url.includes('?') && !url.includes('#'),
    'must have no query or fragment (an issuer is a plain URL)',
  );

/** An OAuth scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`. */
const scopeName = z
  .string()
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be one scope: printable characters, no space or quote');

/** OAUTH_WORKSPACES: comma-separated patterns that keep two people apart (see patternsProblem). */
const DEFAULT_PATTERNS = '{sub},{sub}.*';
const workspacePatterns = z
  .string()
  .default(DEFAULT_PATTERNS)
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .pipe(
    z
      .array(z.string())
      .min(1, 'must list at least one pattern, such as {sub},{sub}.*')
      .max(20, 'must list at most 20 patterns')
      .superRefine((patterns, context) => {
        const problem = patternsProblem(patterns);
        if (problem) {
          context.addIssue({
            code: 'custom',
            message: `holds ${problem}; write patterns such as {sub},{sub}.*: each begins with the same {claim}, then nothing or a separator`,
          });
        }
      }),
  );

const SERVE: readonly Command[] = ['serve'];
/** doctor checks the issuer too */
const SERVE_AND_DOCTOR: readonly Command[] = ['serve', 'doctor'];

export const OAUTH_SETTINGS = {
  staticTokens: setting({
    env: 'STATIC_TOKENS',
    usedBy: SERVE,
    help: "on: MCP_AUTH_TOKEN, ADMIN_TOKEN and TOKENS_FILE tokens are taken beside OAuth ones; off: only OAUTH_ISSUER's access tokens (then none of them may be set)",
    schema: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  }),
  oauthIssuer: setting({
    env: 'OAUTH_ISSUER',
    usedBy: SERVE_AND_DOCTOR,
    flag: 'oauth-issuer',
    help: "an OAuth 2.1 / OpenID Connect authorization server's issuer URL: its access tokens (for PUBLIC_URL, which it needs) are taken, its metadata and keys found from it (docs/security.md)",
    schema: issuerUrl.optional(),
  }),
  oauthAgentScope: setting({
    env: 'OAUTH_AGENT_SCOPE',
    usedBy: SERVE,
    help: "the scope an access token needs for /mcp and the REST API (an agent's)",
    schema: scopeName.default('selenium-flow:agent'),
  }),
  oauthAdminScope: setting({
    env: 'OAUTH_ADMIN_SCOPE',
    usedBy: SERVE,
    help: "the scope an access token needs for the admin page and API (an operator's: every workspace, and Control)",
    schema: scopeName.default('selenium-flow:admin'),
  }),
  oauthControlScope: setting({
    env: 'OAUTH_CONTROL_SCOPE',
    usedBy: SERVE,
    help: "the scope that marks an agent's access token as one an MCP host holds for a person: with CONTROL_BY=apps its live app may take Control (grant it only to hosts' clients, never to an agent's)",
    schema: scopeName.default('selenium-flow:control'),
  }),
  oauthWorkspaces: setting({
    env: 'OAUTH_WORKSPACES',
    usedBy: SERVE,
    help: 'the workspaces an access token may use: comma-separated names or globs (* any run), each beginning with the same {claim} of the token, then nothing or a separator: {sub},{sub}.* or {preferred_username},{preferred_username}-*; a value holding a separator gets none (docs/security.md)',
    schema: workspacePatterns,
    defaultText: DEFAULT_PATTERNS,
  }),
  oauthClientId: setting({
    env: 'OAUTH_CLIENT_ID',
    usedBy: SERVE_AND_DOCTOR,
    help: "this server's own client at OAUTH_ISSUER, to introspect (RFC 7662) access tokens that are not JWTs; unset: only JWT access tokens are taken",
    schema: z.string().min(1).max(256).optional(),
  }),
  oauthClientSecret: setting({
    env: 'OAUTH_CLIENT_SECRET',
    usedBy: SERVE_AND_DOCTOR,
    help: "OAUTH_CLIENT_ID's secret (client_secret_basic)",
    schema: z.string().min(1).max(1024).optional(),
  }),
  oauthAdminClientId: setting({
    env: 'OAUTH_ADMIN_CLIENT_ID',
    usedBy: SERVE,
    help: "the admin page's client at OAUTH_ISSUER (authorization code + PKCE, redirect URI PUBLIC_URL/admin/); unset: the page takes a pasted token only",
    schema: z.string().min(1).max(256).optional(),
  }),
  oauthAdminClientSecret: setting({
    env: 'OAUTH_ADMIN_CLIENT_SECRET',
    usedBy: SERVE,
    help: "OAUTH_ADMIN_CLIENT_ID's secret, when the issuer registered the admin page as a confidential client (the server redeems the page's code)",
    schema: z.string().min(1).max(1024).optional(),
  }),
} satisfies Record<string, Setting<unknown>>;
