import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { callTool, type CallDeps } from '../capabilities/call/call.js';
import type { HttpRendering } from '../capabilities/capability.js';
import { REST_CAPABILITIES } from '../capabilities/index.js';
import { BadRequest } from '../errors.js';
import { isJsonObject } from '../json.js';
import { answerSerializer } from './answer-schema.js';
import { callerOf } from './plugins/caller.js';
import { fastifyPath, pathParams, queryOf } from './routes.js';

/**
 * Every tool as its REST route, rendered from its row. MIRROR_TOOLS is about MCP clients that
 * cannot read resources: REST serves every route either way.
 */
export const toolRoutes: FastifyPluginAsync<{ deps: CallDeps }> = async (app, { deps }) => {
  for (const capability of REST_CAPABILITIES) {
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
  if (http.method === 'GET') {
    return withAddress(queryArguments(queryOf(request)), fromPath, ifMatch);
  }
  if (http.method === 'DELETE') {
    const args = deleteArguments(request);
    return isJsonObject(args) ? withAddress(args, fromPath, ifMatch) : args;
  }
  if (http.bodyArgument) {
    return withAddress({ [http.bodyArgument]: request.body }, fromPath, ifMatch);
  }
  if (!isJsonObject(request.body)) {
    return request.body;
  }
  return withAddress(request.body, fromPath, ifMatch);
}

/**
 * The arguments with those the path and If-Match give. One given again, otherwise, in the query
 * or the body is refused: `POST /flows/a/run {"name": "b"}` ran a, with b dropped unread.
 */
function withAddress(
  args: Record<string, unknown>,
  fromPath: Record<string, unknown>,
  ifMatch: Record<string, unknown>,
): Record<string, unknown> {
  const addressed = { ...fromPath, ...ifMatch };
  const differing = Object.keys(addressed).filter(
    (key) => Object.hasOwn(args, key) && JSON.stringify(args[key]) !== JSON.stringify(addressed[key]),
  );
  if (differing.length > 0) {
    throw new BadRequest(
      `${differing.join(', ')} came both in the address (the path or If-Match) and, otherwise, in the query or body; send each argument once.`,
    );
  }
  return { ...args, ...addressed };
}

/**
 * A DELETE's arguments come in its query or in a JSON body, as its POST twin's (and the admin
 * API's DELETEs) come in the body: a body read by neither would be an instruction ignored.
 */
function deleteArguments(request: FastifyRequest): unknown {
  const query = queryArguments(queryOf(request));
  const body: unknown = request.body;
  if (body === undefined || body === null) {
    return query;
  }
  if (!isJsonObject(body)) {
    return body;
  }
  const twice = Object.keys(body).filter((key) => Object.hasOwn(query, key));
  if (twice.length > 0) {
    throw new BadRequest(`${twice.join(', ')} came in both the query and the body; send each argument once.`);
  }
  return { ...query, ...body };
}

/** Query strings are text: "true"/"false" become booleans so the tool's schema sees its types. */
function queryArguments(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : v]),
  );
}
