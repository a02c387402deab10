import { publicBase, type Config } from '../config.js';
import { InsufficientScope, Unauthorized } from '../errors.js';
import type { Principal } from '../workspace/tokens.js';
import { AccessTokens } from './access-tokens.js';
import { Issuer, type IssuerOptions } from './issuer.js';
import { principalOfGrant } from './workspaces.js';

/** Who a route is for: an agent (the tools, /mcp, the REST API) or an operator (the admin page and API). */
export type Audience = 'agent' | 'admin';

/** The admin page's client at the issuer (authorization code + PKCE). */
export interface AdminClient {
  clientId: string;
  clientSecret?: string;
}

type OAuthConfig = Pick<
  Config,
  | 'oauthIssuer'
  | 'publicUrl'
  | 'routePrefix'
  | 'oauthAgentScope'
  | 'oauthAdminScope'
  | 'oauthControlScope'
  | 'oauthWorkspaces'
  | 'oauthClientId'
  | 'oauthClientSecret'
  | 'oauthAdminClientId'
  | 'oauthAdminClientSecret'
  | 'staticTokens'
>;

/**
 * This server as an OAuth 2.1 resource server (the MCP authorization spec, 2025-11-25): its
 * canonical URL, the metadata that names its issuer (RFC 9728), and the one question every
 * request asks: which principal does this access token stand for, for this kind of route?
 */
export class ResourceServer {
  readonly issuer: Issuer;
  readonly tokens: AccessTokens;
  /** RFC 8707: the URL tokens name as their audience, PUBLIC_URL with ROUTE_PREFIX */
  readonly resource: string;
  readonly scopes: Record<Audience, string>;
  /** the scope that says a host holds the token for a person (the live app's Control, control-policy.ts) */
  private readonly controlScope: string;
  readonly adminClient: AdminClient | undefined;

  private constructor(
    config: OAuthConfig & { oauthIssuer: string; publicUrl: string },
    private readonly patterns: readonly string[],
    options: IssuerOptions,
  ) {
    this.issuer = new Issuer(config.oauthIssuer, options);
    this.resource = canonicalUrl(publicBase(config));
    this.tokens = new AccessTokens({
      issuer: this.issuer,
      resource: this.resource,
      introspection:
        config.oauthClientId && config.oauthClientSecret
          ? { clientId: config.oauthClientId, clientSecret: config.oauthClientSecret }
          : undefined,
      now: options.now,
    });
    this.scopes = { agent: config.oauthAgentScope, admin: config.oauthAdminScope };
    this.controlScope = config.oauthControlScope;
    this.adminClient = config.oauthAdminClientId
      ? { clientId: config.oauthAdminClientId, clientSecret: config.oauthAdminClientSecret }
      : undefined;
  }

  /** The resource server OAUTH_ISSUER asks for, or undefined when it is unset (loadConfig made sure PUBLIC_URL is set). */
  static from(config: OAuthConfig, options: IssuerOptions = {}): ResourceServer | undefined {
    const { oauthIssuer, publicUrl } = config;
    if (!oauthIssuer || !publicUrl) {
      return undefined;
    }
    return new ResourceServer({ ...config, oauthIssuer, publicUrl }, config.oauthWorkspaces, options);
  }

  /** RFC 9728 §3.1: the well-known name goes between the resource's origin and its path. */
  get metadataUrl(): string {
    const url = new URL(this.resource);
    return `${url.origin}/.well-known/oauth-protected-resource${url.pathname.replace(/\/+$/, '')}`;
  }

  /** The protected resource metadata document (RFC 9728 §2). */
  metadata() {
    return {
      resource: this.resource,
      authorization_servers: [this.issuer.url],
      scopes_supported: [this.scopes.agent, this.scopes.admin, this.controlScope],
      bearer_methods_supported: ['header'],
      resource_name: 'selenium-flow',
      resource_documentation:
        'https://github.com/selenium-flow/selenium-flow/blob/main/docs/security.md#signing-in-with-oauth',
    };
  }

  /**
   * The principal an access token stands for on a route for `audience`: a 401 for a token that
   * is not good (expired, another server's, not the issuer's), a 403 naming the scope it lacks.
   * An operator's token addresses every workspace through the admin API, as the admin token does.
   * `staticTokens`: static tokens are taken too, so a token this server cannot check as an access
   * token is refused as a wrong static one.
   */
  async principalOf(token: string, audience: Audience, staticTokens = false): Promise<Principal> {
    if (staticTokens && !this.tokens.couldCheck(token)) {
      // Not shaped as an access token: most likely a mistyped static token, and said as one.
      throw this.missing(audience, true);
    }
    const grant = await this.tokens.verify(token);
    const scope = this.scopes[audience];
    if (!grant.scopes.has(scope)) {
      throw new InsufficientScope(
        scope,
        audience === 'agent'
          ? `This access token lacks the scope ${scope}, which the tools and the REST API need; sign in again asking for ${scope} (your account at ${this.issuer.url} must be granted it).`
          : `This access token lacks the scope ${scope}, which the admin page and API need; sign in as an operator whose account at ${this.issuer.url} is granted ${scope}.`,
      );
    }
    if (audience === 'agent') {
      const principal = principalOfGrant(grant, this.patterns);
      return grant.scopes.has(this.controlScope) ? { ...principal, hostHeld: true } : principal;
    }
    // A token that also opens the tools may sit with an agent: only an operator's alone is a person's (Control).
    const person = !grant.scopes.has(this.scopes.agent);
    return { id: principalOfGrant(grant, []).id, label: 'This operator', ...(person ? { person } : {}) };
  }

  /** What a request without a usable token is told, per kind of route. */
  missing(audience: Audience, staticTokens: boolean): Unauthorized {
    const scope = this.scopes[audience];
    const alternative =
      audience === 'admin'
        ? staticTokens
          ? ', or ADMIN_TOKEN'
          : ''
        : staticTokens
          ? ', or MCP_AUTH_TOKEN or a token of TOKENS_FILE'
          : '';
    return new Unauthorized(
      `Missing or wrong ${audience === 'admin' ? 'admin' : 'bearer'} token; send Authorization: Bearer <an access token from ${this.issuer.url} for ${this.resource} with the scope ${scope}${alternative}> (the resource metadata is at ${this.metadataUrl}).`,
    );
  }
}

/** A URL as tokens name it: lower-case scheme and host (URL does that), no trailing slash, no query. */
function canonicalUrl(base: string): string {
  const url = new URL(base);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
