import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ADMIN_SCOPE,
  AGENT_SCOPE,
  CONTROL_SCOPE,
  newKey,
  startAuthorizationServer,
  type AuthorizationServer,
} from '../helpers/authorization-server.js';
import { startGridProxy, type GridProxy } from '../helpers/grid-proxy.js';
import { startPublicServer, type RunningServer } from '../helpers/server.js';
import { connectAppClient } from '../ui/app-host.js';

const site = inject('siteUrl');
const run = promisify(execFile);
const STATIC = 'a-static-bearer-token-0123456789';
const STATIC_ADMIN = 'a-static-admin-token-0123456789';
/** a command-line agent registered with the issuer beforehand (no dynamic registration) */
const CLI = { client_id: 'test-cli', redirect: 'http://127.0.0.1:9/cli-callback' };
const INTROSPECTOR = { client_id: 'selenium-flow-rs', client_secret: 'introspection-secret-0123456789' };

let issuer: AuthorizationServer;
/** another issuer holding the same keys: the multi-tenant mistake a token's `iss` must catch */
let impostor: AuthorizationServer;
let main: RunningServer;
/** in front of the Grid: what the server sends it */
let grid: GridProxy;
let opaque: RunningServer;
let opaqueUrl: string;

beforeAll(async () => {
  const clients = [
    {
      client_id: CLI.client_id,
      token_endpoint_auth_method: 'none' as const,
      redirect_uris: [CLI.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code' as const],
    },
    {
      client_id: INTROSPECTOR.client_id,
      client_secret: INTROSPECTOR.client_secret,
      redirect_uris: [],
      grant_types: [],
      response_types: [],
    },
  ];
  // Carol signs in through an MCP host, whose client is granted the control scope for her.
  const accounts = {
    alice: [AGENT_SCOPE],
    bob: [AGENT_SCOPE],
    olga: [AGENT_SCOPE, ADMIN_SCOPE],
    carol: [AGENT_SCOPE, CONTROL_SCOPE],
  };
  issuer = await startAuthorizationServer({ accounts, clients });
  impostor = await startAuthorizationServer({ accounts, clients, keys: issuer.keys });
  grid = await startGridProxy(inject('gridUrl'));
  main = await startPublicServer(
    { OAUTH_ISSUER: issuer.issuer, MCP_AUTH_TOKEN: STATIC, ADMIN_TOKEN: STATIC_ADMIN, CONTROL_BY: 'apps' },
    grid.url,
  );
  opaque = await startPublicServer({
    OAUTH_ISSUER: issuer.issuer,
    OAUTH_CLIENT_ID: INTROSPECTOR.client_id,
    OAUTH_CLIENT_SECRET: INTROSPECTOR.client_secret,
  });
  opaqueUrl = opaque.url;
  issuer.opaqueFor.push(opaqueUrl);
});

afterAll(async () => {
  await Promise.all([main?.close(), opaque?.close()]);
  await grid?.close();
  await Promise.all([issuer?.close(), impostor?.close()]);
});

/** An access token as a command-line agent gets one: authorization code + PKCE through the login form. */
async function tokenFor(
  account: string,
  {
    from = issuer,
    resource = main.url,
    scope = AGENT_SCOPE,
  }: { from?: AuthorizationServer; resource?: string; scope?: string } = {},
): Promise<{ access_token: string; refresh_token?: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const metadata = (await (await fetch(`${from.issuer}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
    revocation_endpoint: string;
  };
  const authorize = new URL(metadata.authorization_endpoint);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: CLI.client_id,
    redirect_uri: CLI.redirect,
    scope,
    resource,
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const back = await from.signIn(authorize, account);
  const code = back.searchParams.get('code');
  if (!code) {
    throw new Error(`no code in ${back.search}`);
  }
  const answer = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLI.redirect,
      client_id: CLI.client_id,
      code_verifier: verifier,
      resource,
    }).toString(),
  });
  const tokens = (await answer.json()) as { access_token: string; refresh_token?: string };
  expect(answer.status, JSON.stringify(tokens)).toBe(200);
  return tokens;
}

async function get(
  url: string,
  token: string | undefined,
  workspace?: string,
): Promise<{ status: number; message: string; challenge: string | null; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(workspace ? { 'x-workspace': workspace } : {}),
    },
  });
  const body = (await response.json()) as Record<string, unknown>;
  return {
    status: response.status,
    message: (body.error as { message?: string } | undefined)?.message ?? '',
    challenge: response.headers.get('www-authenticate'),
    body,
  };
}

/** An in-memory OAuth client as an MCP host keeps one: its registration, tokens and PKCE verifier. */
class TestOAuthClient implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private information: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  readonly redirectUrl = 'http://127.0.0.1:9/mcp-callback';

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'a test MCP host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('a resource server by the MCP authorization spec', () => {
  it('answers a request without a token with a 401 that names its metadata, and the metadata names the issuer', async () => {
    const refused = await get(`${main.url}/workspace`, undefined);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe(
      `Bearer realm="selenium-flow", scope="${AGENT_SCOPE}", resource_metadata="${main.url}/.well-known/oauth-protected-resource"`,
    );
    expect(refused.message).toContain(issuer.issuer);
    const admin = await get(`${main.url}/admin/api/workspaces`, undefined);
    expect(admin.challenge).toContain(`scope="${ADMIN_SCOPE}"`);

    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const metadata = await get(`${main.url}${path}`, undefined);
      expect(metadata.status, path).toBe(200);
      expect(metadata.body).toEqual({
        resource: main.url,
        authorization_servers: [issuer.issuer],
        scopes_supported: [AGENT_SCOPE, ADMIN_SCOPE, CONTROL_SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'selenium-flow',
        resource_documentation: expect.stringContaining('docs/security.md') as string,
      });
    }
    // This server is never the authorization server: those addresses point to the issuer.
    const notHere = await get(`${main.url}/.well-known/oauth-authorization-server`, undefined);
    expect([notHere.status, notHere.message]).toEqual([404, expect.stringContaining(issuer.issuer)]);
    expect((await get(`${main.url}/info`, undefined)).body).toMatchObject({ auth: true });
  });

  it('lets the MCP SDK client discover, register, sign in with code + PKCE, call tools and refresh', async () => {
    issuer.accessTokenTtl = 2;
    try {
      const host = new TestOAuthClient();
      const url = new URL(`${main.url}/mcp?workspace=alice`);
      const first = new StreamableHTTPClientTransport(url, { authProvider: host });
      await expect(new Client({ name: 'oauth-test', version: '1' }).connect(first)).rejects.toThrow(UnauthorizedError);
      // It registered itself (RFC 7591) and asked for this server's audience and the agents' scope, with PKCE.
      expect(host.clientInformation()?.client_id).toBeTruthy();
      const asked = host.authorizationUrl;
      expect(asked?.origin).toBe(issuer.issuer);
      expect(asked?.searchParams.get('resource')).toBe(main.url);
      expect(asked?.searchParams.get('scope')).toBe(AGENT_SCOPE);
      expect(asked?.searchParams.get('code_challenge_method')).toBe('S256');

      const back = await issuer.signIn(asked ?? '', 'alice');
      await first.finishAuth(back.searchParams.get('code') ?? '');
      const client = new Client({ name: 'oauth-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: host }));
      try {
        const current = await client.callTool({ name: 'current_workspace', arguments: {} });
        expect(current.structuredContent).toMatchObject({ workspace: 'alice', mode: 'saved' });
        const firstToken = host.tokens()?.access_token;
        expect(host.tokens()?.refresh_token).toBeTruthy();

        // The access token expires (2 s, and the 5 s of clock skew allowed); the SDK refreshes on the 401.
        const said = async () => (await get(`${main.url}/workspace`, firstToken, 'alice')).message;
        await expect.poll(said, { timeout: 20_000, interval: 250 }).toMatch(/^This access token expired at/);
        const tokenRequests = issuer.requests.filter((r) => r === 'POST /token').length;
        const again = await client.callTool({ name: 'current_workspace', arguments: {} });
        expect(again.structuredContent).toMatchObject({ workspace: 'alice' });
        expect(issuer.requests.filter((r) => r === 'POST /token').length).toBe(tokenRequests + 1);
        expect(host.tokens()?.access_token).not.toBe(firstToken);
      } finally {
        await client.close();
      }
    } finally {
      issuer.accessTokenTtl = 300;
    }
  });

  it('has doctor check the issuer’s metadata and keys', async () => {
    const doctor = async (oauthIssuer: string) =>
      run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'doctor'], {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        env: { PATH: process.env.PATH ?? '', GRID_URL: inject('gridUrl'), OAUTH_ISSUER: oauthIssuer },
        timeout: 60_000,
      }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (err: { code: number; stdout: string }) => err,
      );
    const good = await doctor(issuer.issuer);
    expect(good.stdout).toContain(
      `✓ OAuth issuer (OAUTH_ISSUER): ${issuer.issuer} publishes its metadata and 1 signing key (RS256); clients may register themselves (RFC 7591)`,
    );
    expect(good.code).toBe(0);
    const down = await doctor('http://127.0.0.1:9');
    expect(down.stdout).toContain('✗ OAuth issuer (OAUTH_ISSUER): OAUTH_ISSUER http://127.0.0.1:9 cannot be reached');
    expect(down.code).toBe(1);
  });

  it('keeps static tokens working beside OAuth', async () => {
    expect((await get(`${main.url}/workspace`, STATIC, 'anything')).status).toBe(200);
    expect((await get(`${main.url}/admin/api/workspaces`, STATIC_ADMIN)).status).toBe(200);
    const wrong = await get(`${main.url}/workspace`, 'not-the-static-token-at-all');
    expect([wrong.status, wrong.message]).toEqual([401, expect.stringContaining('MCP_AUTH_TOKEN')]);
  });
});

describe('who may do what', () => {
  it('gives each person the workspaces of their own subject, and no other', async () => {
    const alice = (await tokenFor('alice')).access_token;
    const bob = (await tokenFor('bob')).access_token;
    expect((await get(`${main.url}/workspace`, alice, 'alice')).body).toMatchObject({ workspace: 'alice' });
    expect((await get(`${main.url}/workspace`, alice, 'alice.shop')).body).toMatchObject({ workspace: 'alice.shop' });
    for (const [token, workspace] of [
      [alice, 'bob'],
      [alice, 'bob.shop'],
      [bob, 'alice.shop'],
      [bob, 'bobby'],
    ] as const) {
      const refused = await get(`${main.url}/files`, token, workspace);
      expect(refused.status, workspace).toBe(403);
      expect(refused.message).toMatch(
        /^This sign-in \(subject "\w+" of OAUTH_ISSUER\) may not use workspace "[\w.]+"; it may use workspaces matching \w+, \w+\.\*: name one of those\.$/,
      );
    }
  });

  it("keeps one person's stateless browser from another's token", async () => {
    const alice = (await tokenFor('alice')).access_token;
    const bob = (await tokenFor('bob')).access_token;
    const post = (path: string, token: string, body: unknown) =>
      fetch(`${main.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const opened = (await (await post('/browser/open-session', alice, {})).json()) as { session_id: string };
    try {
      const mine = await post('/browser/navigate', alice, { url: `${site}/table.html`, session_id: opened.session_id });
      expect(mine.status).toBe(200);
      const theirs = await post('/browser/navigate', bob, { url: `${site}/login.html`, session_id: opened.session_id });
      expect(theirs.status).toBe(404);
    } finally {
      await post('/browser/end-browser', alice, { session_id: opened.session_id });
    }
    // No access token goes on to the Grid (the page's site gets only what its browser sends).
    expect(grid.requests.some((r) => r.startsWith('POST /session'))).toBe(true);
    expect(grid.authorizations.filter((a) => a.startsWith('Bearer') || a.includes(alice))).toEqual([]);
  });

  it('lists the live app’s Control buttons only to a token granted the control scope (CONTROL_BY=apps)', async () => {
    const listed = async (token: string, workspace: string) => {
      const host = await connectAppClient(main.url, { workspace, headers: { authorization: `Bearer ${token}` } });
      try {
        return (await host.client.listTools()).tools.map((t) => t.name);
      } finally {
        await host.close();
      }
    };
    const carol = (await tokenFor('carol', { scope: `${AGENT_SCOPE} ${CONTROL_SCOPE}` })).access_token;
    expect(await listed(carol, 'carol')).toContain('take_control');
    const alice = (await tokenFor('alice')).access_token;
    const aliceSees = await listed(alice, 'alice');
    expect(aliceSees).toContain('live_ticket');
    expect(aliceSees).not.toContain('take_control');
  });

  it('opens the admin API to the operators’ scope only, never to an agent’s token', async () => {
    const operator = (await tokenFor('olga', { scope: ADMIN_SCOPE })).access_token;
    expect((await get(`${main.url}/admin/api/workspaces`, operator)).status).toBe(200);
    const agent = await get(`${main.url}/admin/api/workspaces`, (await tokenFor('alice')).access_token);
    expect(agent.status).toBe(403);
    expect(agent.challenge).toBe(
      `Bearer realm="selenium-flow", error="insufficient_scope", scope="${ADMIN_SCOPE}", resource_metadata="${main.url}/.well-known/oauth-protected-resource"`,
    );
    expect(agent.message).toBe(
      `This access token lacks the scope ${ADMIN_SCOPE}, which the admin page and API need; sign in as an operator whose account at ${issuer.issuer} is granted ${ADMIN_SCOPE}.`,
    );
    // Control is a person's act: an operator's token is one, a token that also opens the tools may sit with an agent.
    const handBack = (token: string) =>
      fetch(`${main.url}/admin/api/workspaces/olga/control`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ who: 'Olga' }),
      });
    expect((await handBack(operator)).status).toBe(200);
    const both = (await tokenFor('olga', { scope: `${AGENT_SCOPE} ${ADMIN_SCOPE}` })).access_token;
    const refusedControl = await handBack(both);
    expect(refusedControl.status).toBe(403);
    expect(((await refusedControl.json()) as { error: { message: string } }).error.message).toMatch(
      /^Control is a person's act/,
    );
    expect((await get(`${main.url}/admin/api/workspaces`, both)).status).toBe(200);
    // An operator's token is for the admin API: the tools need the agents' scope.
    const tools = await get(`${main.url}/workspace`, operator, 'olga');
    expect([tools.status, tools.challenge]).toEqual([403, expect.stringContaining(`scope="${AGENT_SCOPE}"`)]);
  });
});

describe('refused, each with the spec’s status and one sentence', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const claims = () => ({
    iss: issuer.issuer,
    aud: main.url,
    sub: 'alice',
    scope: AGENT_SCOPE,
    iat: now(),
    exp: now() + 300,
  });

  it.each([
    [
      'wrong audience',
      async () => (await tokenFor('alice', { resource: 'http://127.0.0.1:9/another-server' })).access_token,
      /^This access token is for "http:\/\/127\.0\.0\.1:9\/another-server", not for this server \(http:\/\/127\.0\.0\.1:\d+\); ask for a token with resource=http:\/\/127\.0\.0\.1:\d+ \(RFC 8707\)\.$/,
    ],
    [
      'wrong issuer',
      async () => (await tokenFor('alice', { from: impostor })).access_token,
      /^This access token was issued by "http:\/\/127\.0\.0\.1:\d+", not by OAUTH_ISSUER http:\/\/127\.0\.0\.1:\d+; sign in through http:\/\/127\.0\.0\.1:\d+\.$/,
    ],
    [
      'expired',
      () => issuer.forge({ ...claims(), iat: now() - 600, exp: now() - 60 }),
      /^This access token expired at \d{4}-\d\d-\d\dT[\d:.]+Z; refresh it, or sign in again\.$/,
    ],
    [
      'not yet valid',
      () => issuer.forge({ ...claims(), nbf: now() + 120 }),
      /^This access token is not valid until \d{4}-\d\d-\d\dT[\d:.]+Z; check the clocks of the issuer and this server, or wait until then\.$/,
    ],
    [
      'alg none',
      async () => {
        const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims())}.`;
      },
      /^This access token is signed with "none", which this server does not take \(it takes RS256, .*EdDSA, Ed25519\); sign in again through http:\/\/127\.0\.0\.1:\d+ for a signed token\.$/,
    ],
    [
      'signed by a key the issuer does not publish',
      async () => {
        const stranger = await newKey('key-1');
        const { importJWK, SignJWT } = await import('jose');
        return new SignJWT(claims())
          .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
          .sign(await importJWK(stranger.privateJwk, 'RS256'));
      },
      /^This access token is not signed by a key http:\/\/127\.0\.0\.1:\d+ publishes \(a key it has rotated away, or another issuer's\); sign in again for a new token\.$/,
    ],
    [
      'no subject',
      () => issuer.forge({ ...claims(), sub: undefined }),
      /^This access token has no "sub" claim, which this server requires; ask http:\/\/127\.0\.0\.1:\d+ for access tokens \(RFC 9068\) with an expiry and a subject\.$/,
    ],
  ])('refuses %s with a 401 and a sentence', async (_name, token, sentence) => {
    const refused = await get(`${main.url}/workspace`, await token(), 'alice');
    expect(refused.status).toBe(401);
    expect(refused.message).toMatch(sentence);
    expect(refused.challenge).toMatch(
      /^Bearer realm="selenium-flow", error="invalid_token", scope="selenium-flow:agent", resource_metadata=/,
    );
  });

  it('refuses a token without the agents’ scope with a 403 insufficient_scope naming it', async () => {
    const operatorOnly = (await tokenFor('olga', { scope: ADMIN_SCOPE })).access_token;
    const refused = await get(`${main.url}/workspace`, operatorOnly, 'olga');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'forbidden' } });
    expect(refused.challenge).toContain(`error="insufficient_scope", scope="${AGENT_SCOPE}"`);
    expect(refused.message).toBe(
      `This access token lacks the scope ${AGENT_SCOPE}, which the tools and the REST API need; sign in again asking for ${AGENT_SCOPE} (your account at ${issuer.issuer} must be granted it).`,
    );
  });

  it('checks opaque tokens by introspection, refusing one the issuer revoked', async () => {
    const live = await tokenFor('alice', { resource: opaqueUrl });
    expect(live.access_token.split('.')).toHaveLength(1);
    expect((await get(`${opaqueUrl}/workspace`, live.access_token, 'alice')).body).toMatchObject({
      workspace: 'alice',
    });
    expect(issuer.requests).toContain('POST /token/introspection');

    const revoked = await tokenFor('bob', { resource: opaqueUrl });
    const revocation = await fetch(`${issuer.issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked.access_token, client_id: CLI.client_id }).toString(),
    });
    expect(revocation.status).toBe(200);
    const refused = await get(`${opaqueUrl}/workspace`, revoked.access_token, 'bob');
    expect([refused.status, refused.message]).toEqual([
      401,
      `${issuer.issuer} says this access token is not active (expired, revoked or unknown); refresh it, or sign in again.`,
    ]);
    // A JWT for the other server is refused here too: the audience is checked whichever way the token is read.
    const elsewhere = await get(`${opaqueUrl}/workspace`, (await tokenFor('alice')).access_token, 'alice');
    expect([elsewhere.status, elsewhere.message]).toEqual([401, expect.stringContaining('not for this server')]);
  });

  // Last: it rotates the issuer's keys for good.
  it('follows the issuer’s key rotation: a new key is fetched on its first token, a key rotated away is refused', async () => {
    const old = (await tokenFor('alice')).access_token;
    expect((await get(`${main.url}/workspace`, old, 'alice')).status).toBe(200);
    issuer.rotate([await newKey('key-2')]);
    const fresh = (await tokenFor('alice')).access_token;
    // The server fetches the key set again on an unknown kid, at most once every few seconds.
    let answered = 0;
    for (let i = 0; i < 40 && answered !== 200; i++) {
      answered = (await get(`${main.url}/workspace`, fresh, 'alice')).status;
      if (answered !== 200) {
        await delay(500);
      }
    }
    expect(answered).toBe(200);
    const refused = await get(`${main.url}/workspace`, old, 'alice');
    expect(refused.status).toBe(401);
    expect(refused.message).toContain('not signed by a key');
  });
});
