import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import type { AdminServices } from '../admin/services.js';
import type { AdminLink } from '../admin/link.js';
import { callTool, type CallDeps } from '../capabilities/call/call.js';
import { CAPABILITIES } from '../capabilities/index.js';
import type { HttpRendering } from '../capabilities/capability.js';
import { BadRequest, errorBody, Forbidden, SeleniumFlowError, PayloadTooLarge, Unauthorized } from '../errors.js';
import { buildMcpServer } from '../mcp/server.js';
import type { FlowToolOptions } from '../mcp/flow-tools.js';
import { WorkspaceEventBus } from '../mcp/list-changed.js';
import { listedTools } from '../mcp/tools.js';
import type { Caller } from '../workspace/caller.js';
import type { TokenBook } from '../workspace/tokens.js';
import type { RequestGuard } from './guard.js';
import type { LiveService } from '../live/service.js';
import { openApiDocument, openApiYaml } from './openapi.js';
import { PLAIN_ROUTES } from './plain-routes.js';
import { PROBE_ROUTES } from './operation-routes.js';
import { callerOf, registerCallerHook } from './caller.js';
import { fastifyPath, registerPlainRoutes, type RouteContext } from './routes.js';
import { prettyInTerminal } from '../ops/log.js';
import { registerOAuthDiscovery } from './oauth-discovery.js';
import { ADMIN_SESSION_REMEDY } from './admin/session-route.js';

export interface AppOptions {
  version: string;
  authToken: string | undefined;
  /** the admin API's token (ADMIN_TOKEN); the bearer token when unset; neither: the admin API is closed */
  adminToken?: string;
  /** with no token at all: the banner's one-time link, and the admin session it was exchanged for */
  adminLink?: AdminLink;
  /** every bearer token (MCP_AUTH_TOKEN and TOKENS_FILE) and who each stands for */
  tokens: TokenBook;
  /** Host and Origin: who may address this server by which name */
  guard: RequestGuard;
  mirrorTools: boolean;
  /** FLOW_TOOLS and FLOW_TOOLS_MAX: each saved flow an MCP tool */
  flowTools?: FlowToolOptions;
  maxBodyBytes: number;
  logLevel: string;
  /** whether the Grid and the store answer, for /ready */
  ready: () => Promise<{ grid: boolean; store: boolean; fence?: string }>;
  features: Record<string, boolean>;
  /** the live view and Control */
  live?: LiveService;
  /** ROUTE_PREFIX: every route is served under it */
  routePrefix?: string;
  /** the operator's services behind /admin/api */
  admin?: AdminServices;
}

/**
 * A client that opens a connection and sends half a request holds a socket and its memory for as
 * long as the server waits (Node's own defaults: a minute for the headers, five for the request,
 * looked at every 30 s). Real clients send their headers in milliseconds: past HEADERS_TIMEOUT_MS
 * the server answers 408 and closes. A body (an upload of up to MAX_BODY_BYTES) gets longer.
 * Neither bounds an answer: a long poll or a stream, once its request is in, is the route's business.
 */
export const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 120_000;
const CONNECTIONS_CHECK_MS = 1_000;
/** Above the 60 s idle timeout of common load balancers, so they never reuse a socket we just closed. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export function buildApp(deps: CallDeps, options: AppOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: options.maxBodyBytes,
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A file name of 255 bytes is up to 765 characters percent-encoded: the default (100) made
    // names that save fine answer 414 when fetched.
    routerOptions: { maxParamLength: 1024 },
    logger: { level: options.logLevel, redact: ['req.headers.authorization'], ...prettyInTerminal(process.stdout) },
    // Fastify's request lines print the URL, and a query string can carry a Grid id: ours (see
    // logRequest) name the route's pattern instead.
    logController: new LogController({ disableRequestLogging: true }),
    // The router's own refusals (a malformed %-escape) and Node's (headers too large) in the shared error shape.
    frameworkErrors: (err, _request, reply) => {
      const { status, body } = errorBody(fromFastifyError(err, options.maxBodyBytes));
      void (reply as FastifyReply).code(status).send(body);
    },
    clientErrorHandler: refuseMalformedRequest,
  });

  app.setErrorHandler((err, _request, reply) => sendError(reply, fromFastifyError(err, options.maxBodyBytes), app));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: {
        code: 'not_found',
        message: `No route ${request.method} ${request.url.split('?')[0]}; see ${options.routePrefix ?? ''}/openapi.json for the routes.`,
      },
    }),
  );
  app.decorateRequest('principal', undefined);
  app.addHook('onResponse', async (request, reply) => logRequest(app, request, reply, options.routePrefix));
  // The one place every request is checked: by name (Host, Origin), then by token.
  app.addHook('onRequest', async (request) => {
    const { access = 'bearer', anyHost = false } = request.routeOptions.config;
    options.guard.check(request, anyHost);
    // A route nobody matched (a 404) asks for the bearer token like any other.
    if (access === 'admin') {
      const adminToken = options.adminToken ?? options.authToken;
      if (adminToken) {
        checkBearer(request, adminToken, 'Missing or wrong admin token; send Authorization: Bearer <ADMIN_TOKEN>.');
      } else if (options.adminLink) {
        const header = request.headers.authorization ?? '';
        if (!options.adminLink.accepts(header.startsWith('Bearer ') ? header.slice(7) : undefined)) {
          throw new Unauthorized(ADMIN_SESSION_REMEDY);
        }
      } else {
        throw new Forbidden(
          'The admin API is closed because no admin token is set; set ADMIN_TOKEN (or MCP_AUTH_TOKEN, which it defaults to) and send it as Authorization: Bearer <token>.',
        );
      }
    } else if (access === 'bearer') {
      // A signed link carries its own proof (an HMAC with an expiry), checked by its route.
      const header = request.headers.authorization ?? '';
      const principal = options.tokens.principalOf(header.startsWith('Bearer ') ? header.slice(7) : undefined);
      if (!principal) {
        throw new Unauthorized(
          'Missing or wrong bearer token; send Authorization: Bearer <MCP_AUTH_TOKEN, or a token of TOKENS_FILE>.',
        );
      }
      request.principal = principal;
    }
  });
  // After the token check: who is asking, decided once for every route that serves a caller.
  registerCallerHook(app);
  // A flow document may be PUT as YAML text, the form people write it in.
  app.addContentTypeParser(
    ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/plain'],
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, body);
    },
  );

  // Rendered on first request, not at boot: the YAML alone costs half a second of cold start.
  let json: Record<string, unknown> | undefined;
  let yaml: string | undefined;
  const context: RouteContext = {
    ...options,
    deps,
    openApiJson: () => (json ??= openApiDocument(options.version, options.routePrefix)),
    openApiYaml: () => (yaml ??= openApiYaml(options.version, options.routePrefix)),
  };
  // The hooks, parsers and handlers above are the root's, so the prefixed routes inherit them.
  void app.register(
    async (scoped) => {
      registerPlainRoutes(scoped, PLAIN_ROUTES, context);
      registerCapabilities(scoped, deps);
      registerMcp(scoped, deps, options);
      if (options.routePrefix) {
        registerOAuthDiscovery(scoped);
      }
    },
    { prefix: options.routePrefix ?? '' },
  );
  if (options.routePrefix) {
    // Probes are configured per host, not per path: they find the health checks at the root too.
    registerPlainRoutes(app, PROBE_ROUTES, context);
  }
  // Clients look for OAuth at the root of the origin, whatever the MCP URL's path.
  registerOAuthDiscovery(app);
  return app;
}

function registerCapabilities(app: FastifyInstance, deps: CallDeps): void {
  // MIRROR_TOOLS is about MCP clients that cannot read resources: REST serves every route either way.
  for (const capability of CAPABILITIES) {
    app.route({
      method: capability.http.method,
      url: fastifyPath(capability.http.path),
      handler: async (request) =>
        callTool(deps, capability, httpArguments(capability.http, request), callerOf(request)),
    });
  }
}

/** A tool's arguments from an HTTP request, as its rendering in the table says. */
function httpArguments(http: HttpRendering, request: FastifyRequest): unknown {
  const fromPath = request.params as Record<string, string>;
  const ifMatch =
    http.ifMatchArgument && request.headers['if-match']
      ? { [http.ifMatchArgument]: request.headers['if-match'].replace(/^"|"$/g, '') }
      : {};
  if (http.method === 'GET' || http.method === 'DELETE') {
    return { ...queryArguments(request.query as Record<string, string>), ...fromPath, ...ifMatch };
  }
  if (http.bodyArgument) {
    return { [http.bodyArgument]: request.body, ...fromPath, ...ifMatch };
  }
  if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
    return request.body;
  }
  return { ...request.body, ...fromPath, ...ifMatch };
}

/** Query strings are text: "true"/"false" become booleans so the tool's schema sees its types. */
function queryArguments(query: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : v]),
  );
}

function registerMcp(app: FastifyInstance, deps: CallDeps, options: AppOptions): void {
  const tools = listedTools(options.mirrorTools);
  const log = (err: unknown) => app.log.error({ err: errorSummary(err) }, 'tool call failed');
  const bus = new WorkspaceEventBus();
  bus.follow(deps.flows);
  const flowTools = options.flowTools;
  const handler = createMcpHandler(
    (ctx) => buildMcpServer(deps, callerOfMcpRequest(ctx), { version: options.version, tools, log, flowTools }),
    { maxRequestBodySize: options.maxBodyBytes, bus },
  );
  const node = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes });
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    // The caller hook resolved it before the SDK takes the socket: a bad or forbidden workspace is a plain 4xx.
    const caller = callerOf(request);
    // The SDK hands authInfo through to the server factory untouched; the token itself stays here.
    (request.raw as { auth?: AuthInfo }).auth = {
      token: '',
      clientId: caller.owner ?? '',
      scopes: [],
      extra: { caller },
    };
    reply.hijack();
    await bus.asCaller(caller, () => node(request.raw, reply.raw, request.body));
  };
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    app.route({ method, url: '/mcp', config: { mcp: true }, handler: serve });
  }
}

type AuthInfo = { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };

/** The caller serve() resolved, and the signal the SDK aborts when the HTTP exchange closes early. */
function callerOfMcpRequest(ctx: { authInfo?: { extra?: Record<string, unknown> }; requestInfo?: Request }): Caller {
  const caller = ctx.authInfo?.extra?.caller as Caller | undefined;
  if (!caller) {
    throw new Error('An MCP request reached the server factory without the caller serve() resolved.');
  }
  return { ...caller, abandoned: ctx.requestInfo?.signal };
}

/** Probes and scrapes come every few seconds from machines: a person reading the log wants the rest. */
const MACHINE_ROUTES = new Set(['/health', '/started', '/ready', '/metrics']);

/** One line per request: the route's pattern (never the URL, whose query may carry an id), status and time. */
function logRequest(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, prefix = ''): void {
  const route = request.routeOptions.url ?? '(no route)';
  const line = {
    event: 'request',
    method: request.method,
    route,
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime),
  };
  const machine =
    MACHINE_ROUTES.has(route) || (route.startsWith(prefix) && MACHINE_ROUTES.has(route.slice(prefix.length)));
  // request.log carries the reqId that the request's tool-call line carries too (caller.requestId).
  request.log[machine ? 'debug' : 'info'](line, 'request');
}

function checkBearer(request: FastifyRequest, token: string, refusal: string): void {
  const header = request.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new Unauthorized(refusal);
  }
}

/** Fastify's own failures (body too large, bad JSON) in our catalogue's words. */
function fromFastifyError(err: unknown, maxBodyBytes: number): unknown {
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new PayloadTooLarge(
      `The request body is larger than ${maxBodyBytes} bytes (MAX_BODY_BYTES); send less (a file saved in the workspace goes by its workspace:// uri).`,
    );
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new BadRequest('Send the arguments as JSON with Content-Type: application/json.');
  }
  if (code === 'FST_ERR_BAD_URL') {
    return new BadRequest('The URL has a malformed %-escape; percent-encode names in the path (encodeURIComponent).');
  }
  if (
    code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    err instanceof SyntaxError
  ) {
    return new BadRequest('The body is not valid JSON; send the arguments as a JSON object.');
  }
  // Any other request Fastify itself refuses is the caller's to fix, never a 500.
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && !(err instanceof SeleniumFlowError)) {
    return new BadRequest(
      `The request was refused (HTTP ${status}); check the method, headers and body against /openapi.json.`,
    );
  }
  return err;
}

/** A request Node could not even parse: answered on the socket, in the shared error shape. */
function refuseMalformedRequest(err: { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, error] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          '431 Request Header Fields Too Large',
          {
            code: 'payload_too_large',
            message:
              'The request line or headers are too large; send a shorter URL (arguments go in the body) and fewer headers.',
          },
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            '408 Request Timeout',
            {
              code: 'request_timeout',
              message: `The request did not arrive in time (its headers within ${HEADERS_TIMEOUT_MS / 1000} s); send the whole request at once.`,
            },
          ]
        : [
            '400 Bad Request',
            { code: 'bad_request', message: 'The request is not valid HTTP; check the request line and headers.' },
          ];
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function sendError(reply: FastifyReply, err: unknown, app: FastifyInstance) {
  const { status, body } = errorBody(err);
  if (status === 500) {
    app.log.error({ err: errorSummary(err) }, 'unexpected error');
  }
  if (status === 401) {
    // RFC 6750: the scheme a client should answer with. No resource_metadata: there is no OAuth here.
    const sent = reply.request.headers.authorization !== undefined;
    void reply.header('www-authenticate', `Bearer realm="selenium-flow"${sent ? ', error="invalid_token"' : ''}`);
  }
  return reply.code(status).send(body);
}

/**
 * What a log line may say about an unexpected error: its class and stack, not its message,
 * which can quote a page URL, a title or typed text.
 */
function errorSummary(err: unknown): { type: string; stack?: string } {
  if (err instanceof Error) {
    return { type: err.name, stack: err.stack?.split('\n').slice(1, 6).join('\n') };
  }
  return { type: typeof err };
}
