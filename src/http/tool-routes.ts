import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { callTool, type CallDeps } from '../capabilities/call/call.js';
import type { HttpRendering } from '../capabilities/capability.js';
import { CAPABILITIES } from '../capabilities/index.js';
import { answerSerializer } from './answer-schema.js';
import { callerOf } from './plugins/caller.js';
import { fastifyPath, pathParams, queryOf } from './routes.js';

/**
 * Every tool as its REST route, rendered from its row. MIRROR_TOOLS is about MCP clients that
 * cannot read resources: REST serves every route either way.
 */
export const toolRoutes: FastifyPluginAsync<{ deps: CallDeps }> = async (app, { deps }) => {
  for (const capability of CAPABILITIES) {
    app.route({
      method: capability.http.method,
      url: fastifyPath(capability.http.path),
      // The row's output declaration writes the answer: a key it does not name never reaches the wire.
      schema: { response: { 200: capability.output } },
      serializerCompiler: answerSerializer,
      handler: async (request) =>
        callTool(deps, capability, httpArguments(capability.http, request), callerOf(request)),
    });
  }
};

/** A tool's arguments from an HTTP request, as its rendering in the table says. */
function httpArguments(http: HttpRendering, request: FastifyRequest): unknown {
  const fromPath = pathParams(request);
  const ifMatch =
    http.ifMatchArgument && request.headers['if-match']
      ? { [http.ifMatchArgument]: request.headers['if-match'].replace(/^"|"$/g, '') }
      : {};
  if (http.method === 'GET' || http.method === 'DELETE') {
    return { ...queryArguments(queryOf(request)), ...fromPath, ...ifMatch };
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
function queryArguments(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : v]),
  );
}
