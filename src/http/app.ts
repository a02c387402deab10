import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { callTool, type CallDeps } from '../capabilities/call.js';
import { CAPABILITIES, MIRROR_TOOLS } from '../capabilities/index.js';
import type { HttpRendering } from '../capabilities/define.js';
import { BadRequest, errorBody, SeleniumFlowError, PayloadTooLarge, Unauthorized } from '../errors.js';
import { buildMcpServer } from '../mcp/server.js';
import { listedTools } from '../mcp/tools.js';
import { resolveCaller, type Caller } from '../workspace/caller.js';
import { openApiDocument, openApiYaml } from './openapi.js';
import { PLAIN_ROUTES } from './plain-routes.js';
import { PROBE_ROUTES } from './operation-routes.js';
import { fastifyPath, registerPlainRoutes, type RouteContext } from './routes.js';

export interface AppOptions {
  version: string;
  authToken: string | undefined;
  /** the admin API's token (ADMIN_TOKEN); the bearer token when unset */
  adminToken?: string;
  mirrorTools: boolean;
  maxBodyBytes: number;
  logLevel: string;
  /** whether the Grid and the store answer, for /ready */
  ready: () => Promise<{ grid: boolean; store: boolean }>;
  features: Record<string, boolean>;
  /** ROUTE_PREFIX: every route is served under it */
  routePrefix?: string;
}

export function buildApp(deps: CallDeps, options: AppOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: options.maxBodyBytes,
    logger: { level: options.logLevel, redact: ['req.headers.authorization'] },
    // Fastify's request lines print the URL, and a query string can carry a Grid id.
    logController: new LogController({ disableRequestLogging: true }),
  });

  app.setErrorHandler((err, _request, reply) => sendError(reply, fromFastifyError(err), app));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: { code: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}; see ${options.routePrefix ?? ''}/openapi.json for the routes.` },
    }),
  );
  app.addHook('onRequest', async (request) => {
    // A route nobody matched (a 404) asks for the bearer token like any other.
    const access = request.routeOptions.config.access ?? 'bearer';
    const adminToken = options.adminToken ?? options.authToken;
    if (access === 'admin') {
      if (adminToken) {
        checkBearer(request, adminToken, 'Missing or wrong admin token; send Authorization: Bearer <ADMIN_TOKEN>.');
      }
    } else if (access === 'bearer' && options.authToken) {
      // A signed link carries its own proof (an HMAC with an expiry), checked by its route.
      checkBearer(request, options.authToken);
    }
  });
  // A flow document may be PUT as YAML text, the form people write it in.
  app.addContentTypeParser(['application/yaml', 'text/yaml', 'application/x-yaml', 'text/plain'], { parseAs: 'string' }, (_request, body, done) => {
    done(null, body);
  });

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
      registerCapabilities(scoped, deps, options);
      registerMcp(scoped, deps, options);
    },
    { prefix: options.routePrefix ?? '' },
  );
  if (options.routePrefix) {
    // Probes are configured per host, not per path: they find the health checks at the root too.
    registerPlainRoutes(app, PROBE_ROUTES, context);
  }
  return app;
}

function registerCapabilities(app: FastifyInstance, deps: CallDeps, options: AppOptions): void {
  for (const capability of CAPABILITIES) {
    if (!options.mirrorTools && MIRROR_TOOLS.has(capability.name)) {
      continue;
    }
    app.route({
      method: capability.http.method,
      url: fastifyPath(capability.http.path),
      handler: async (request) => {
        const caller = resolveCaller({ header: request.headers['x-workspace'] });
        return callTool(deps, capability, httpArguments(capability.http, request), caller);
      },
    });
  }
}

/** A tool's arguments from an HTTP request, as its rendering in the table says. */
function httpArguments(http: HttpRendering, request: FastifyRequest): unknown {
  const fromPath = request.params as Record<string, string>;
  const ifMatch = http.ifMatchArgument && request.headers['if-match'] ? { [http.ifMatchArgument]: request.headers['if-match'].replace(/^"|"$/g, '') } : {};
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
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : v]));
}

function registerMcp(app: FastifyInstance, deps: CallDeps, options: AppOptions): void {
  const tools = listedTools(options.mirrorTools);
  const log = (err: unknown) => app.log.error({ err: errorSummary(err) }, 'tool call failed');
  const handler = createMcpHandler(
    (ctx) => buildMcpServer(deps, callerOfMcpRequest(ctx.requestInfo), { version: options.version, tools, log }),
    { maxRequestBodySize: options.maxBodyBytes },
  );
  const node = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes });
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    // Validate the workspace before the SDK takes the socket, so a bad name is a plain 400.
    callerOfNodeRequest(request);
    reply.hijack();
    await node(request.raw, reply.raw, request.body);
  };
  app.post('/mcp', serve);
  app.get('/mcp', serve);
  app.delete('/mcp', serve);
}

function callerOfNodeRequest(request: FastifyRequest): Caller {
  const query = (request.query as Record<string, unknown>).workspace;
  return resolveCaller({
    header: request.headers['x-workspace'],
    query: typeof query === 'string' ? query : null,
    mcpSessionId: request.headers['mcp-session-id'],
  });
}

function callerOfMcpRequest(request: Request | undefined): Caller {
  if (!request) {
    return {};
  }
  return resolveCaller({
    header: request.headers.get('x-workspace') ?? undefined,
    query: new URL(request.url).searchParams.get('workspace'),
    mcpSessionId: request.headers.get('mcp-session-id') ?? undefined,
  });
}

function checkBearer(
  request: FastifyRequest,
  token: string,
  refusal = 'Missing or wrong bearer token; send Authorization: Bearer <MCP_AUTH_TOKEN>.',
): void {
  const header = request.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new Unauthorized(refusal);
  }
}

/** Fastify's own failures (body too large, bad JSON) in our catalogue's words. */
function fromFastifyError(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new PayloadTooLarge('The request body is too large; send less (upload big files in parts, or by path).');
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new BadRequest('Send the arguments as JSON with Content-Type: application/json.');
  }
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
    return new BadRequest('The body is not valid JSON; send the arguments as a JSON object.');
  }
  // Any other request Fastify itself refuses is the caller's to fix, never a 500.
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && !(err instanceof SeleniumFlowError)) {
    return new BadRequest(`The request was refused (HTTP ${status}); check the method, headers and body against /openapi.json.`);
  }
  return err;
}

function sendError(reply: FastifyReply, err: unknown, app: FastifyInstance) {
  const { status, body } = errorBody(err);
  if (status === 500) {
    app.log.error({ err: errorSummary(err) }, 'unexpected error');
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
