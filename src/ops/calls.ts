import { errorBody } from '../errors.js';
import { countToolCall } from './metrics.js';

/** The slice of a pino logger a call's line needs. */
export interface CallLog {
  info(line: object, message: string): void;
}

/**
 * What every tool call leaves behind, wherever it came from (MCP, HTTP, a flow step): one log
 * line and its metrics. The line names the tool, the workspace, the outcome and the time —
 * never an argument, a URL, a title or an id, which can carry what a page or a person typed.
 */
export function observeCall(
  log: CallLog | undefined,
  call: { tool: string; workspace: string | undefined; requestId?: string; error?: unknown; started: number },
): void {
  const ms = Math.round(performance.now() - call.started);
  const outcome = call.error === undefined ? 'ok' : errorBody(call.error).body.error.code;
  countToolCall(call.tool, outcome, ms);
  const line = { event: 'tool_call', tool: call.tool, workspace: call.workspace ?? null, outcome, ms };
  // The same key as Fastify's request lines, so one search finds a request and the calls it made.
  log?.info(call.requestId === undefined ? line : { reqId: call.requestId, ...line }, 'tool call');
}
