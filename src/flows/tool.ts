import type { ObjectSchema } from '../capabilities/json-schema.js';
import { isJsonObject } from '../json.js';
import type { Capability } from '../capabilities/capability.js';
import type { FlowTool } from './view.js';
import { BadRequest } from '../errors.js';
import { MAX_FLOW_TOOL_BYTES, MAX_FLOW_TOOLS_BYTES } from '../limits.js';
import { parseFlow, type FlowDocument } from './document.js';
import { GLOBAL_LIBRARY } from './names.js';
import type { FlowStore } from './store.js';

export const FLOW_TOOL_PREFIX = 'flow_';

/** A saved flow as tools/list shows it: flow_<name>, its parameters as the input schema. */
export interface FlowToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: Record<string, boolean>;
}

/** What a flow is as a tool: its schema, and hints read off the rows its steps call. */
export function asFlowTool(
  name: string,
  document: FlowDocument,
  shared: boolean,
  capabilities: readonly Capability[],
): FlowTool {
  const rows = document.steps.map((step) => capabilities.find((c) => c.name === step.tool));
  return {
    name,
    description: document.description,
    parameters: document.parameters,
    shared,
    readOnly: rows.every((c) => c?.readOnly === true),
    destructive: rows.some((c) => c?.destructive !== false),
  };
}

/** The listing of a flow tool; `sessionId` is the argument a stateless caller adds (run_flow's own). */
export function flowToolOf(flow: FlowTool, sessionId?: unknown): FlowToolListing {
  // Saved parameters are one object's schema (flows/parameters.ts refuses any other at save).
  const parameters: ObjectSchema = flow.parameters
    ? { ...flow.parameters, type: 'object' }
    : { type: 'object', properties: {} };
  const properties = isJsonObject(parameters.properties) ? parameters.properties : undefined;
  return {
    name: `${FLOW_TOOL_PREFIX}${flow.name}`,
    title: `Flow ${flow.name}${flow.shared ? ' (shared)' : ''}`,
    description: `${flow.description ? `${flow.description.replace(/\.?\s*$/, '')}. ` : ''}The saved flow ${flow.name}: every step in one call, as run_flow.`,
    inputSchema:
      sessionId === undefined ? parameters : { ...parameters, properties: { ...properties, session_id: sessionId } },
    annotations: flow.readOnly ? { readOnlyHint: true } : { destructiveHint: flow.destructive },
  };
}

/** What a listing adds to tools/list: its JSON and the comma before the next. */
export function listingBytes(listing: FlowToolListing): number {
  return Buffer.byteLength(JSON.stringify(listing)) + 1;
}

/**
 * The one rule every write into a library passes (save_flow, PUT /flows, the admin API's put and
 * move): a flow as a tool is at most MAX_FLOW_TOOL_BYTES, and the library's flows as tools at
 * most MAX_FLOW_TOOLS_BYTES together, so tools/list, which every client reads on every connection,
 * cannot be grown without end by saving flows (20 flows of 200 parameters once made it 1.88 MB).
 */
export async function checkToolBudget(
  store: FlowStore,
  capabilities: readonly Capability[],
  library: string,
  flow: FlowTool,
): Promise<void> {
  const bytes = listingBytes(flowToolOf(flow));
  if (bytes > MAX_FLOW_TOOL_BYTES) {
    throw new BadRequest(
      `Flow ${flow.name} as a tool (${FLOW_TOOL_PREFIX}${flow.name}) would add ${bytes} bytes to tools/list, over the limit of ${MAX_FLOW_TOOL_BYTES} bytes for one flow tool; shorten its description and its parameters' descriptions, drop parameters it does not need, or split it into smaller flows.`,
    );
  }
  let total = bytes;
  for (const other of await toolsOf(store, capabilities, library)) {
    if (other.name !== flow.name) {
      total += listingBytes(flowToolOf(other));
    }
  }
  if (total > MAX_FLOW_TOOLS_BYTES) {
    throw new BadRequest(
      `With flow ${flow.name} the flows of ${library} would add ${total} bytes to tools/list as tools, over the limit of ${MAX_FLOW_TOOLS_BYTES} bytes for a library's flow tools; delete flows ${library} no longer needs, or shorten their descriptions and parameters.`,
    );
  }
}

/** A library's stored flows as tools; one that cannot be read is no tool (and costs tools/list nothing). */
async function toolsOf(store: FlowStore, capabilities: readonly Capability[], library: string): Promise<FlowTool[]> {
  const tools: FlowTool[] = [];
  for (const name of await store.names(library)) {
    const stored = await store.get(library, name).catch(() => undefined);
    if (!stored) {
      continue;
    }
    try {
      tools.push(
        asFlowTool(name, parseFlow(stored.text, capabilities), stored.library === GLOBAL_LIBRARY, capabilities),
      );
    } catch {
      // unreadable: listed with its problem, never as a tool
    }
  }
  return tools;
}
