import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { callTool, type CallDeps, type ToolResult } from '../capabilities/call/call.js';
import { ROLES, capabilityNamed } from '../capabilities/index.js';
import { splitImage, type Capability } from '../capabilities/capability.js';
import { errorBody } from '../errors.js';
import type { StepProgress } from '../flows/view.js';
import type { Caller } from '../workspace/caller.js';
import { answerText } from './answer-text.js';
import { listedTo, type announcesApps, type AppClient } from './apps.js';
import { flowToolCall, type FlowToolOptions } from './flow-tools.js';
import type { TaskEra } from './tasks.js';
import type { ListedTool } from './tools.js';

/** What tools/call needs beyond the call path: what this server lists, to whom, and how it runs a tool. */
export interface ToolCallOptions {
  tools: ListedTool[];
  flowTools: FlowToolOptions;
  client: (ctx: Parameters<typeof announcesApps>[1]) => AppClient;
  tasks: TaskEra;
  runTool: ToolRunner;
}

type ToolRunner = ReturnType<typeof toolRunner>;

/**
 * tools/call: a listed row, or one of the caller's flow tools (run_flow with its params, the same
 * call and the same report), answered as a task when the era's client asks for one.
 */
export function serveToolCall(server: Server, deps: CallDeps, caller: Caller, options: ToolCallOptions): void {
  const { tools, flowTools, client, tasks, runTool } = options;
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const args = request.params.arguments ?? {};
    const flowCall = await flowToolCall(deps, caller, flowTools, request.params.name, args);
    const capability = flowCall ? ROLES.runsFlows : capabilityNamed(request.params.name);
    const listed = (c: Capability) => tools.some((t) => t.name === c.name) && listedTo(c, client(ctx));
    if (!capability || (!flowCall && !listed(capability))) {
      // A protocol error, not a tool result: no call was made, and the model cannot fix it by changing arguments.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}"; call tools/list for the tools this server has.`,
      );
    }
    const task = flowCall ? undefined : await tasks.start(deps, capability, caller, { params: request.params, ctx });
    if (task) {
      return task;
    }
    // notifications/cancelled ends a wait (await_control) as the HTTP exchange closing does.
    const abandoned = caller.abandoned ? AbortSignal.any([caller.abandoned, ctx.mcpReq.signal]) : ctx.mcpReq.signal;
    return runTool(
      capability,
      flowCall ?? args,
      { ...caller, abandoned },
      {
        progress: progressOf(ctx.mcpReq._meta?.progressToken, ctx.mcpReq.notify),
      },
    );
  });
}

/** One tool call through the call path, answered as a tool result (a refusal is isError, not a protocol error). */
export function toolRunner(deps: CallDeps, options: { noGrid?: string; log: (err: unknown) => void }) {
  return async (capability: Capability, args: unknown, as: Caller, asStep?: { progress?: StepProgress }) => {
    if (options.noGrid !== undefined && capability.attach !== 'none') {
      return errorResult(options.noGrid);
    }
    try {
      return toolResult(capability, await callTool(deps, capability, args, as, asStep));
    } catch (err) {
      const { status, body } = errorBody(err);
      if (status === 500) {
        options.log(err);
      }
      return errorResult(body.error.message);
    }
  };
}

/** Each flow step, as a progress notification, when the client sent a progressToken. */
function progressOf(
  token: string | number | undefined,
  notify: (notification: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>,
): StepProgress | undefined {
  if (token === undefined) {
    return undefined;
  }
  return (progress, total, message) => {
    notify({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(
      () => undefined,
    );
  };
}

/**
 * structuredContent carries the result; the text block says the same in plain lines for a
 * model (answer-text.ts). An image travels once, as an image block, not also in the JSON.
 */
function toolResult(capability: Capability, result: ToolResult) {
  const { image, rest: structured } = splitImage(capability, result);
  const content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[] = [
    { type: 'text', text: answerText(capability, structured) },
  ];
  if (image) {
    content.push({ type: 'image', data: image.data, mimeType: image.mimeType });
  }
  return { content, structuredContent: structured };
}

function errorResult(message: string) {
  return { content: [{ type: 'text' as const, text: message }], isError: true };
}
