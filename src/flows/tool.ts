import type { ObjectSchema } from '../capabilities/json-schema.js';
import { isJsonObject } from '../json.js';
import type { Capability } from '../capabilities/capability.js';
import type { FlowTool } from './view.js';
import { BadRequest } from '../errors.js';
import { MAX_FLOW_TOOL_BYTES } from '../limits.js';
import type { FlowDocument } from './document.js';

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
 * The rule a flow's tool passes on every write into a library (save_flow, PUT /flows, the admin
 * API's put and move): at most MAX_FLOW_TOOL_BYTES, so one flow cannot fill what a caller's
 * tools/list carries of flow tools (20 flows of 200 parameters once made it 1.88 MB).
 */
export function checkToolSize(flow: FlowTool): void {
  const bytes = listingBytes(flowToolOf(flow));
  if (bytes > MAX_FLOW_TOOL_BYTES) {
    throw new BadRequest(
      `Flow ${flow.name} as a tool (${FLOW_TOOL_PREFIX}${flow.name}) would add ${bytes} bytes to tools/list, over the limit of ${MAX_FLOW_TOOL_BYTES} bytes for one flow tool; shorten its description and its parameters' descriptions, drop parameters it does not need, or split it into smaller flows.`,
    );
  }
}
