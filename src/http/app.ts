import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AdminServices } from '../admin/services.js';
import type { AdminLink } from '../admin/link.js';
import type { CallDeps } from '../capabilities/call/call.js';
import type { FlowToolOptions } from '../mcp/flow-tools.js';
import type { TokenBook } from '../workspace/tokens.js';
import type { McpSessionStore } from '../workspace/mcp-sessions.js';
import type { ResourceServer } from '../oauth/resource-server.js';
import type { LiveService } from '../live/service.js';
import { prettyInTerminal } from '../ops/log.js';
import type { RequestGuard } from './guard.js';
import { drainGate, type Drain } from './drain.js';
import { mcpRoute } from './mcp-route.js';
import { oauthDiscovery } from './oauth-discovery.js';
import { openApiDocument, openApiYaml } from './openapi.js';
import { PROBE_ROUTES } from './operation-routes.js';
import { ADMIN_ROUTES, FILE_ROUTES, LIVE_ROUTES, OPERATION_ROUTES, PAGE_ROUTES } from './plain-routes.js';
import { auth } from './plugins/auth.js';
import { yamlBodies } from './plugins/bodies.js';
import { caller } from './plugins/caller.js';
import { errors, frameworkErrors, HEADERS_TIMEOUT_MS } from './plugins/errors.js';
import { requestIdOf, requestLog } from './plugins/request-log.js';
import { routes, type RouteContext } from './routes.js';
import { toolRoutes } from './tool-routes.js';

export { HEADERS_TIMEOUT_MS };

export interface AppOptions {
  version: string;
  authToken: string | undefined;
  /** the admin API's token (ADMIN_TOKEN); the bearer token when unset; neither: the admin API is closed */
  adminToken?: string;
  /** with no token at all: the banner's one-time link, and the admin session it was exchanged for */
  adminLink?: AdminLink;
  /** every bearer token (MCP_AUTH_TOKEN and TOKENS_FILE) and who each stands for */
  tokens: TokenBook;
  /** OAUTH_ISSUER: this server as an OAuth resource server */
  oauth?: ResourceServer;
  /** Host and Origin: who may address this server by which name */
  guard: RequestGuard;
  mirrorTools: boolean;
  /** FLOW_TOOLS and FLOW_TOOLS_MAX: each saved flow an MCP tool */
  flowTools?: FlowToolOptions;
  maxBodyBytes: number;
  /** STREAMS_PER_TOKEN: one token's MCP notification streams in this process */
  streamsPerToken?: number;
  /** what each 2025-11-25 client said at initialize (its Mcp-Session-Id) */
  mcpSessions: McpSessionStore;
  /** after each MCP tools/list answer (ops/warm-up.ts) */
  onToolsListed?: () => void;
  logLevel: string;
  /** whether the Grid and the store answer, for /ready */
  ready: () => Promise<{ grid: boolean; store: boolean; fence?: string }>;
  features: Record<string, boolean>;
  /** the live view and Control */
  live?: LiveService;
  /** ROUTE_PREFIX: every route is served under it */
  routePrefix?: string;
  /** PUBLIC_URL: where clients reach this server, for the OpenAPI document's `servers` */
  publicUrl?: string;
  /** the operator's services behind /admin/api */
  admin?: AdminServices;
  /** the stop (SIGTERM): new requests answer 503 once it begins, and it counts those running */
  drain: Drain;
  /** WORKSPACES_PER_TOKEN: each request naming a workspace asks here first */
  admitWorkspace?: (owner: string, workspace: string) => Promise<void>;
}

const REQUEST_TIMEOUT_MS = 120_000;
const CONNECTIONS_CHECK_MS = 1_000;
/** Above the 60 s idle timeout of common load balancers, so they never reuse a socket we just closed. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The HTTP surface, as a table of contents: the plugins every request passes (errors, the
 * request log and its ids, auth, caller, bodies), then the routes by area, each an encapsulated plugin.
 */
export function buildApp(deps: CallDeps, options: AppOptions): FastifyInstance {
  const { maxBodyBytes, routePrefix } = options;
  const app = Fastify({
    // Our gate answers a request that comes while stopping, in our words (http/drain.ts).
    return503OnClosing: false,
    bodyLimit: maxBodyBytes,
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A file name of 255 bytes is up to 765 characters percent-encoded: the default (100) made
    // names that save fine answer 414 when fetched.
    routerOptions: { maxParamLength: 1024 },
    logger: { level: options.logLevel, redact: ['req.headers.authorization'], ...prettyInTerminal(process.stdout) },
    // Fastify's request lines print the URL, and a query string can carry a Grid id: ours (see
    // plugins/request-log.ts) name the route's pattern instead.
    logController: new LogController({ disableRequestLogging: true }),
    // The caller's X-Request-Id when plain, else a random id (plugins/request-log.ts).
    genReqId: requestIdOf,
    ...frameworkErrors(maxBodyBytes),
  });

  // The root's own: every route below, prefixed or not, passes them in this order. The request
  // log before auth: a refusal carries its request's id too.
  void app.register(errors, { maxBodyBytes, routePrefix });
  void app.register(requestLog, { routePrefix });
  // Before auth: while stopping, nothing is asked of the store a token check may read.
  void app.register(drainGate, { drain: options.drain });
  const { guard, tokens, authToken, adminToken, adminLink, oauth } = options;
  void app.register(auth, { guard, tokens, authToken, adminToken, adminLink, oauth });
  void app.register(caller, { admit: options.admitWorkspace });
  void app.register(yamlBodies);

  const context = routeContext(deps, options);
  void app.register(
    async (api) => {
      void api.register(routes(OPERATION_ROUTES), context);
      void api.register(toolRoutes, { deps });
      void api.register(routes(FILE_ROUTES), context);
      void api.register(routes(ADMIN_ROUTES), context);
      void api.register(routes(LIVE_ROUTES), context);
      void api.register(routes(PAGE_ROUTES), context);
      const { version, mirrorTools, flowTools, streamsPerToken, drain, mcpSessions, onToolsListed } = options;
      const mcp = {
        deps,
        version,
        mirrorTools,
        flowTools,
        maxBodyBytes,
        streamsPerToken,
        drain,
        sessions: mcpSessions,
        onToolsListed,
      };
      void api.register(mcpRoute, mcp);
      if (routePrefix) {
        void api.register(oauthDiscovery, { oauth });
      }
    },
    { prefix: routePrefix ?? '' },
  );
  if (routePrefix) {
    // Probes are configured per host, not per path: they find the health checks at the root too.
    void app.register(routes(PROBE_ROUTES), context);
  }
  // Clients look for OAuth at the root of the origin, whatever the MCP URL's path.
  void app.register(oauthDiscovery, { oauth });
  return app;
}

/** What the plain routes' handlers may use. */
function routeContext(deps: CallDeps, options: AppOptions): RouteContext {
  // Rendered on first request, not at boot: the YAML alone costs half a second of cold start.
  let json: Record<string, unknown> | undefined;
  let yaml: string | undefined;
  return {
    deps,
    version: options.version,
    tokens: options.tokens,
    ready: options.ready,
    features: options.features,
    live: options.live,
    admin: options.admin,
    adminLink: options.adminLink,
    oauth: options.oauth,
    openApiJson: () => (json ??= openApiDocument(options.version, options)),
    openApiYaml: () => (yaml ??= openApiYaml(options.version, options)),
  };
}
