import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

export const AGENT_SCOPE = 'selenium-flow:agent';
export const ADMIN_SCOPE = 'selenium-flow:admin';
/** The scope a host's client is granted, saying it holds the token for a person (the live app's Control). */
export const CONTROL_SCOPE = 'selenium-flow:control';

/** A signing key of the issuer's: the private JWK oidc-provider signs with, and its kid. */
export interface IssuerKey {
  kid: string;
  privateJwk: JWK;
}

export async function newKey(kid: string): Promise<IssuerKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

export interface AuthorizationServerOptions {
  /** the scopes each account may be granted; an account not named here may sign in with none */
  accounts: Record<string, readonly string[]>;
  /** pre-registered clients (the admin page's, this server's introspection client) */
  clients?: Configuration['clients'];
  keys?: IssuerKey[];
  /** the port to listen on (another issuer on another port may share the keys) */
  port?: number;
}

export interface AuthorizationServer {
  issuer: string;
  keys: IssuerKey[];
  /** seconds an access token lives; change it between tests */
  accessTokenTtl: number;
  /** every request the issuer received, "METHOD path" (what the resource server asked of it) */
  requests: string[];
  /** resource indicators whose access tokens are opaque (introspected); every other one gets a JWT */
  opaqueFor: string[];
  /** registers a client beforehand, as an operator does at a real issuer (the server's URL is known late) */
  register(client: ClientMetadata): void;
  /** serve a new key set from now on, as an issuer that rotated its keys (its grants are kept) */
  rotate(keys: IssuerKey[]): void;
  /** a JWT signed with the issuer's first key, claims as given: for what a real issuer would not issue */
  forge(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /**
   * Signs `account` in for an authorization URL as a person's browser would (the login form),
   * and answers the redirect it ends on.
   */
  signIn(authorizationUrl: URL | string, account: string): Promise<URL>;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect / OAuth 2.1 authorization server (panva's certified oidc-provider) on
 * loopback, as the tests' issuer: dynamic client registration, authorization code + PKCE,
 * resource indicators (the token's audience), refresh tokens, introspection. Its login page is
 * a form asking for a user name, which a test fills in (a browser) or posts (signIn).
 */
export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  let keys = options.keys ?? [await newKey('key-1')];
  const requests: string[] = [];
  const clients = [...(options.clients ?? [])];
  const server: AuthorizationServer = {
    issuer,
    keys,
    accessTokenTtl: 300,
    requests,
    opaqueFor: [],
    register: (client) => {
      clients.push(client);
      provider = build();
    },
    rotate: (next) => {
      keys = next;
      server.keys = next;
      provider = build();
    },
    forge: async (claims, header = {}) => {
      const first = keys[0];
      if (!first) {
        throw new Error('the issuer has no key');
      }
      const { importJWK } = await import('jose');
      const key = await importJWK(first.privateJwk, 'RS256');
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: first.kid, typ: 'at+jwt', ...header })
        .sign(key);
    },
    signIn: (url, account) => signInAs(new URL(url), account, issuer),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };

  const build = () => {
    const built = new Provider(issuer, {
      clients,
      jwks: { keys: keys.map((k) => k.privateJwk) },
      cookies: { keys: ['a-test-cookie-key-that-is-long-enough'] },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        introspection: { enabled: true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => ({
            scope: `${AGENT_SCOPE} ${ADMIN_SCOPE} ${CONTROL_SCOPE}`,
            audience: indicator,
            accessTokenTTL: server.accessTokenTtl,
            accessTokenFormat: server.opaqueFor.includes(indicator) ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      // Listed for dynamic registration, which checks a client's `scope` against them.
      scopes: ['openid', 'offline_access', AGENT_SCOPE, ADMIN_SCOPE, CONTROL_SCOPE],
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
      // A person's preferred_username rides in the access token too, for OAUTH_WORKSPACES patterns.
      extraTokenClaims: (_ctx, token) =>
        'accountId' in token && typeof token.accountId === 'string'
          ? { preferred_username: token.accountId }
          : undefined,
      // Every client that may refresh gets a refresh token (no offline_access dance in tests).
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      // Consent is the account's scopes: granted what it may have, refused the rest, never asked.
      loadExistingGrant: async (ctx) => {
        const accountId = ctx.oidc.session?.accountId;
        const clientId = ctx.oidc.client?.clientId;
        if (!accountId || !clientId) {
          return undefined;
        }
        const allowed = new Set(options.accounts[accountId] ?? []);
        const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
        grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
        for (const indicator of Object.keys(ctx.oidc.resourceServers ?? {})) {
          const requested = [...ctx.oidc.requestParamScopes].filter((s) =>
            [AGENT_SCOPE, ADMIN_SCOPE, CONTROL_SCOPE].includes(s),
          );
          grant.addResourceScope(indicator, requested.filter((s) => allowed.has(s)).join(' '));
          grant.rejectResourceScope(indicator, requested.filter((s) => !allowed.has(s)).join(' '));
        }
        await grant.save();
        return grant;
      },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, RefreshToken: 3600 },
    });
    return built;
  };
  let provider = build();

  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`);
    const login = /^\/interaction\/([\w-]+)(\/login)?$/.exec((req.url ?? '').split('?')[0] ?? '');
    if (login) {
      void interaction(provider, req, res, login[1] ?? '', login[2] !== undefined).catch((err: unknown) => {
        res.statusCode = 400;
        res.end(String(err));
      });
      return;
    }
    void provider.callback()(req, res);
  });
  return server;
}

/** The login page: a form asking for a user name, and its post, which signs that account in. */
async function interaction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
  post: boolean,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (!post) {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html lang="en"><head><title>Test Issuer: sign in</title></head><body>
<main><h1>Test Issuer</h1><p>Sign in to continue to ${String(details.params.client_id)}.</p>
<form method="post" action="/interaction/${uid}/login">
<label for="login">User name</label> <input id="login" name="login" autocomplete="username" autofocus>
<button type="submit">Sign in</button></form></main></body></html>`);
    return;
  }
  const body = await new Promise<string>((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });
  const account = new URLSearchParams(body).get('login') ?? '';
  await provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
}

/** Follows the issuer's redirects with a cookie jar, posting the login form on the way. */
async function signInAs(start: URL, account: string, issuer: string): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: URL, init: RequestInit = {}) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    await response.body?.cancel();
    return response;
  };
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== issuer) {
      return url;
    }
    const login = /^\/interaction\/([\w-]+)$/.exec(url.pathname);
    const response = login
      ? await send(new URL(`${url.pathname}/login`, issuer), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ login: account }).toString(),
        })
      : await send(url);
    const location = response.headers.get('location');
    if (!location) {
      throw new Error(`the issuer answered ${response.status} at ${url.pathname} without a redirect`);
    }
    url = new URL(location, url);
  }
  throw new Error('the issuer redirected more than 10 times');
}
