import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CallDeps } from '../capabilities/call/call.js';
import type { FlowToolOptions } from '../mcp/flow-tools.js';
import { WorkspaceEventBus } from '../mcp/list-changed.js';
import { LegacyStreams } from '../mcp/legacy-stream.js';
import { buildMcpServer } from '../mcp/server.js';
import { listedTools } from '../mcp/tools.js';
import type { Caller } from '../workspace/caller.js';
import { callerOf } from './plugins/caller.js';
import { errorSummary } from './plugins/errors.js';

export interface McpRouteOptions {
  deps: CallDeps;
  version: string;
  mirrorTools: boolean;
  /** FLOW_TOOLS and FLOW_TOOLS_MAX: each saved flow an MCP tool */
  flowTools?: FlowToolOptions;
  maxBodyBytes: number;
}

/** `/mcp`: the MCP SDK's streamable HTTP transport, one server per caller. */
export const mcpRoute: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const { deps } = options;
  const tools = listedTools(options.mirrorTools);
  const log = (err: unknown) => app.log.error({ err: errorSummary(err) }, 'tool call failed');
  const bus = new WorkspaceEventBus();
  bus.follow(deps.flows);
  const streams = new LegacyStreams(bus);
  const flowTools = options.flowTools;
  const handler = createMcpHandler(
    (ctx) =>
      buildMcpServer(deps, callerOfMcpRequest(ctx), {
        version: options.version,
        tools,
        log,
        flowTools,
        era: ctx.era,
      }),
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
    if (request.method === 'GET') {
      // The SDK serves 2025-11-25 statelessly and answers its GET 405: the stream is ours.
      streams.admit(caller, request.headers.accept);
      reply.hijack();
      streams.serve(caller, first(request.headers['last-event-id']), reply.raw);
      return;
    }
    reply.hijack();
    await bus.asCaller(caller, () => node(request.raw, reply.raw, request.body));
  };
  app.addHook('preClose', async () => streams.endAll());
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    app.route({ method, url: '/mcp', config: { mcp: true }, handler: serve });
  }
};

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
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
