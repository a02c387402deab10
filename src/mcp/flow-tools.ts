import type { CallDeps } from '../capabilities/call/call.js';
import type { FlowTool } from '../flows/view.js';
import { ROLES } from '../capabilities/index.js';
import { jsonSchemaOf } from '../capabilities/json-schema.js';
import { isJsonObject } from '../json.js';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import { FLOW_TOOL_PREFIX, flowToolOf, listingBytes } from '../flows/tool.js';
import { MAX_FLOW_TOOLS_BYTES } from '../limits.js';
import type { Caller } from '../workspace/caller.js';
import type { ListedTool } from './tools.js';

export interface FlowToolOptions {
  /** FLOW_TOOLS */
  enabled: boolean;
  /** FLOW_TOOLS_MAX: how many are listed, most recently run first */
  max: number;
}

/** What tools/list says about the flow tools it lists, so their cost stays visible. */
export interface FlowToolsMeta {
  listed: number;
  /** flows that could be tools; those beyond FLOW_TOOLS_MAX run through run_flow */
  total: number;
  /** the bytes the listed flow tools add to tools/list */
  bytes: number;
}

/** The session_id a stateless caller passes, exactly as run_flow declares it. */
const runFlowArguments = jsonSchemaOf(ROLES.runsFlows.input, 'input').properties;
const SESSION_ID = isJsonObject(runFlowArguments) ? runFlowArguments.session_id : undefined;

/**
 * The caller's flows as tools: its own and the shared ones, most recently run first, at most
 * FLOW_TOOLS_MAX. The list depends on the workspace (who is asking) and the library, never on
 * the connection.
 */
export async function flowToolsFor(
  deps: CallDeps,
  caller: Caller,
  options: FlowToolOptions,
): Promise<{ tools: ListedTool[]; meta: FlowToolsMeta }> {
  if (!options.enabled || !deps.flows) {
    return { tools: [], meta: { listed: 0, total: 0, bytes: 0 } };
  }
  const flows = await deps.flows.tools(caller);
  // Most recently run first, while the flow tools together stay within their budget: a library
  // holds up to 1,000 flows, and a caller lists its own library's and global's.
  const tools: ListedTool[] = [];
  let bytes = 0;
  for (const flow of flows.slice(0, options.max)) {
    const tool = toListedFlowTool(flow, caller.key === undefined);
    const size = listingBytes(tool);
    if (bytes + size <= MAX_FLOW_TOOLS_BYTES) {
      tools.push(tool);
      bytes += size;
    }
  }
  return { tools, meta: { listed: tools.length, total: flows.length, bytes } };
}

export function toListedFlowTool(flow: FlowTool, stateless: boolean): ListedTool {
  return flowToolOf(flow, stateless ? SESSION_ID : undefined);
}

/**
 * The run_flow arguments a flow tool's call stands for, or undefined when the name is no flow
 * tool of this caller's (then it is an unknown tool, as any other name would be).
 */
export async function flowToolCall(
  deps: CallDeps,
  caller: Caller,
  options: FlowToolOptions,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  if (!options.enabled || !deps.flows || !tool.startsWith(FLOW_TOOL_PREFIX)) {
    return undefined;
  }
  const name = tool.slice(FLOW_TOOL_PREFIX.length);
  // Every flow the caller can run answers, listed or not: the cap orders a list, it does not lock a door.
  if (!(await deps.flows.tools(caller)).some((f) => f.name === name)) {
    return undefined;
  }
  const { session_id: sessionId, ...params } = args;
  return { name, params, ...(sessionId === undefined ? {} : { session_id: sessionId }) };
}

/** Whether a change to this library changes what this caller lists. */
export function affects(caller: Caller | undefined, library: string): boolean {
  return library === GLOBAL_LIBRARY || (caller?.workspace !== undefined && caller.workspace === library);
}
