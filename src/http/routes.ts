import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AdminServices } from '../admin/services.js';
import { BadRequest } from '../errors.js';
import type { AdminLink } from '../admin/link.js';
import type { CallDeps } from '../capabilities/call/call.js';
import type { TokenBook } from '../workspace/tokens.js';
import type { ResourceServer } from '../oauth/resource-server.js';
import type { LiveService } from '../live/service.js';
import { answerSerializer } from './answer-schema.js';
import { isJsonObject } from '../json.js';
import type { Access } from './plugins/auth.js';

/**
 * A REST route that is not a tool: the health checks, the API description, the file tree,
 * signed links and the admin API. One row registers the route and documents it in the OpenAPI
 * document, so neither can exist without the other.
 */
export interface PlainRoute {
  method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  /** OpenAPI form: `/files/{name}` */
  path: string;
  summary: string;
  tag: 'operations' | 'files' | 'admin';
  access: Access;
  /** see FastifyContextConfig.anyHost */
  anyHost?: boolean;
  /**
   * what a 200 carries: JSON of this zod declaration (its serializer writes only the keys it
   * names), JSON no schema describes (a JSON Schema document), a file's bytes, YAML or plain
   * text, an event stream, an HTML page; or a redirect
   */
  answers: z.ZodType | 'json' | 'file' | 'yaml' | 'text' | 'events' | 'page' | 'redirect';
  /** what the request body carries, when it has one (the handler parses it: this documents it) */
  body?: z.ZodType | 'yaml';
  /** request headers the route reads, and what each means */
  headers?: Record<string, string>;
  /** query parameters and what each means; any other is refused */
  query?: Record<string, string>;
  /** a page a browser opens from a link, which may carry a query of its own: nothing is refused */
  anyQuery?: true;
  handler: (request: FastifyRequest, reply: FastifyReply, context: RouteContext) => Promise<unknown>;
}

/** What a plain route's handler may use: the server's parts and facts, given at registration. */
export interface RouteContext {
  deps: CallDeps;
  version: string;
  /** every bearer token; `open` when none is configured */
  tokens: TokenBook;
  /** whether the Grid and the store answer */
  ready: () => Promise<{ grid: boolean; store: boolean }>;
  features: Record<string, boolean>;
  /** the live view and Control (absent in a server built without them) */
  live?: LiveService;
  openApiJson: () => Record<string, unknown>;
  openApiYaml: () => string;
  /** the operator's services behind /admin/api */
  admin?: AdminServices;
  /** the banner's one-time admin link, when no token is configured */
  adminLink?: AdminLink;
  /** OAUTH_ISSUER: the admin page signs in through it */
  oauth?: ResourceServer;
}

/**
 * One area's rows as an encapsulated plugin: what it registers (routes, and any hook an area
 * adds later) stays inside it, while the root's plugins (errors, auth, caller) reach in.
 */
export function routes(rows: readonly PlainRoute[]): FastifyPluginAsync<RouteContext> {
  return async (app, context) => {
    for (const route of rows) {
      app.route({
        method: route.method,
        url: fastifyPath(route.path),
        config: { access: route.access, anyHost: route.anyHost === true },
        ...(typeof route.answers === 'object'
          ? { schema: { response: { 200: route.answers } }, serializerCompiler: answerSerializer }
          : {}),
        handler: (request, reply) => {
          refuseUnknownQuery(route, request);
          return route.handler(request, reply, context);
        },
      });
    }
  };
}

/** A query parameter no route reads would be an instruction ignored: `?since=` read as "all of them". */
function refuseUnknownQuery(route: PlainRoute, request: FastifyRequest): void {
  if (route.anyQuery) {
    return;
  }
  const declared = route.query ?? {};
  const unknown = Object.keys(queryOf(request)).filter((name) => !Object.hasOwn(declared, name));
  if (unknown.length === 0) {
    return;
  }
  const takes = Object.entries(declared).map(([name, meaning]) => `${name} (${meaning})`);
  throw new BadRequest(
    `Unknown query parameter ${unknown.map((name) => JSON.stringify(name)).join(', ')} for ${route.method} ${route.path}; ${
      takes.length > 0 ? `it takes only ${takes.join(', ')}` : 'it takes none'
    }.`,
  );
}

/** `/flows/{name}/run` → `['name']` */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
}

/** `/files/{name}` → `/files/:name` */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** A route's path parameters, which Fastify always sets (as strings) for a matched route. */
export function pathParams(request: FastifyRequest): Record<string, string> {
  const params: unknown = request.params;
  return Object.fromEntries(
    Object.entries(isJsonObject(params) ? params : {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/** The query string's parameters (a string each, or an array when repeated); none: empty. */
export function queryOf(request: FastifyRequest): Record<string, unknown> {
  const query: unknown = request.query;
  return isJsonObject(query) ? query : {};
}
