import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CallDeps } from '../capabilities/call/call.js';
import type { FlowToolOptions } from '../mcp/flow-tools.js';
import { WorkspaceEventBus } from '../mcp/list-changed.js';
import { LegacyStreams } from '../mcp/legacy-stream.js';
import { StreamSlots } from '../mcp/stream-slots.js';
import { STREAMS_MAX, STREAMS_PER_CALLER, STREAMS_PER_TOKEN } from '../limits.js';
import { buildMcpServer } from '../mcp/server.js';
import { listedTools, type ListedTool } from '../mcp/tools.js';
import type { Caller } from '../workspace/caller.js';
import type { McpSessionStore } from '../workspace/mcp-sessions.js';
import { McpSessions } from './mcp-sessions.js';
import { corsHeaders, preflightHeaders } from './mcp-cors.js';
import { callerOf } from './plugins/caller.js';
import { errorSummary } from './plugins/errors.js';
import type { Drain } from './drain.js';

export interface McpRouteOptions {
  deps: CallDeps;
  version: string;
  mirrorTools: boolean;
  /** FLOW_TOOLS and FLOW_TOOLS_MAX: each saved flow an MCP tool */
  flowTools?: FlowToolOptions;
  maxBodyBytes: number;
  /** STREAMS_PER_TOKEN */
  streamsPerToken?: number;
  /** the stop (SIGTERM): every notification stream ends when it begins */
  drain?: Drain;
  /** where 2025-11-25 sessions live: the store the replicas share */
  sessions: McpSessionStore;
  onToolsListed?: () => void;
}

/** `/mcp`: the MCP SDK's streamable HTTP transport, one server per caller. */
export const mcpRoute: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const { deps } = options;
  const tools = listedTools(options.mirrorTools);
  const log = (err: unknown) => app.log.error({ err: errorSummary(err) }, 'tool call failed');
  const bus = new WorkspaceEventBus();
  bus.follow(deps.flows);
  const slots = new StreamSlots({
    perCaller: STREAMS_PER_CALLER,
    perToken: options.streamsPerToken ?? STREAMS_PER_TOKEN,
    max: STREAMS_MAX,
  });
  const streams = new LegacyStreams(bus, slots);
  const sessions = new McpSessions(options.sessions);
  const handlerOf = () => mcpHandler(options, { tools, log, bus });
  // Listen streams have a handler of their own: closing it ends each stream with its final
  // result (the spec's graceful close), while the calls in flight on the other finish.
  const [handler, listenHandler] = [handlerOf(), handlerOf()];
  const node = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes });
  const listenNode = toNodeHandler(listenHandler, { maxRequestBodySize: options.maxBodyBytes });
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    // Before the SDK writes the head (a hijacked answer skips onSend, below).
    for (const [name, value] of Object.entries(corsHeaders(request.headers.origin))) {
      reply.raw.setHeader(name, value);
    }
    // The caller hook resolved it before the SDK takes the socket: a bad or forbidden workspace is a plain 4xx,
    // and so is an ended session (404).
    const { caller, announced, ended } = await sessions.admit(request, reply, callerOf(request));
    if (ended) {
      // The session's own workspace goes with it; a workspace the client named stays.
      if (caller.workspace === undefined) {
        await deps.workspaces.end(caller, undefined).catch(() => false);
      }
      return reply.code(204).send();
    }
    // The SDK hands authInfo through to the server factory untouched; the token itself stays here.
    (request.raw as { auth?: AuthInfo }).auth = {
      token: '',
      clientId: caller.owner ?? '',
      scopes: [],
      extra: { caller, announced },
    };
    if (request.method === 'GET') {
      // The SDK serves 2025-11-25 statelessly and answers its GET 405: the stream is ours.
      const release = streams.admit(caller, request.headers.accept);
      reply.hijack();
      streams.serve(caller, first(request.headers['last-event-id']), reply.raw, release);
      return;
    }
    // A listen stream is the SDK's, open as long as its exchange: it takes its place here, before
    // the SDK answers (the SDK's own bound is the process's, and a refusal must name the limit).
    const listens = opensListenStream(request.body);
    if (listens) {
      reply.raw.once('close', slots.take(caller));
    }
    reply.hijack();
    await bus.asCaller(caller, () => (listens ? listenNode : node)(request.raw, reply.raw, request.body));
  };
  const endStreams = () => {
    streams.endAll();
    void listenHandler.close().catch(() => undefined);
  };
  options.drain?.onBegin(endStreams);
  app.addHook('preClose', async () => endStreams());
  answerCors(app);
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    app.route({ method, url: '/mcp', config: { mcp: true }, handler: serve });
  }
};

/** The SDK's handler: an MCP server for each request, for the caller its hooks found. */
function mcpHandler(
  options: McpRouteOptions,
  { tools, log, bus }: { tools: ListedTool[]; log: (err: unknown) => void; bus: WorkspaceEventBus },
) {
  return createMcpHandler(
    (ctx) =>
      buildMcpServer(options.deps, callerOfMcpRequest(ctx), {
        version: options.version,
        tools,
        log,
        flowTools: options.flowTools,
        era: ctx.era,
        announced: announcedOf(ctx),
        onToolsListed: options.onToolsListed,
      }),
    { maxRequestBodySize: options.maxBodyBytes, bus },
  );
}

/** CORS for /mcp (mcp-cors.ts): its headers on the answers a page may read, and the preflight. */
function answerCors(app: FastifyInstance): void {
  // The requests that passed the guard and the token (their hooks run first): a refusal of theirs
  // (404, 429…) a page may read too; the guard's own 403 and a 401 it may not.
  const admitted = new WeakSet<FastifyRequest>();
  app.addHook('onRequest', async (request) => {
    admitted.add(request);
  });
  app.addHook('onSend', async (request, reply) => {
    if (admitted.has(request)) {
      void reply.headers(corsHeaders(request.headers.origin));
    }
  });
  app.route({
    method: 'OPTIONS',
    url: '/mcp',
    // A preflight carries no token; the guard still checks its Host and Origin.
    config: { access: 'public' },
    handler: async (request, reply) => reply.code(204).headers(preflightHeaders(request.headers.origin)).send(),
  });
}

/** Whether a JSON-RPC message (or batch) asks for a 2026-07-28 `subscriptions/listen` stream. */
function opensListenStream(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && 'method' in m && m.method === 'subscriptions/listen',
  );
}

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

/** What the request's session said at initialize (McpSessions.admit), handed through like the caller. */
function announcedOf(ctx: { authInfo?: { extra?: Record<string, unknown> } }): string[] | undefined {
  return z.array(z.string()).optional().catch(undefined).parse(ctx.authInfo?.extra?.announced);
}
