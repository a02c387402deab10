import { callTool } from '../capabilities/call/call.js';
import { flowDocumentJsonSchema } from '../flows/document.js';
import { CAPABILITIES, ROLES } from '../capabilities/index.js';
import type { ResourceDefinition } from './resources.js';

/** Reads are resources, writes are tools; each resource reads through its mirror tool. */
/** The flow document's schema; the flows themselves are list_flows' and get_flow's mirrors. */
export const FLOW_RESOURCES: ResourceDefinition[] = [
  {
    uri: 'flow://schema',
    name: 'flow document schema',
    title: 'Flow document schema',
    description: 'The JSON Schema of a flow document: every step a tool call validated by that tool’s own schema.',
    mimeType: 'application/schema+json',
    read: async (_deps, _caller, uri) => [
      { uri, mimeType: 'application/schema+json', text: JSON.stringify(flowDocumentJsonSchema(CAPABILITIES)) },
    ],
  },
];

export const FLOW_COMPLETIONS: Record<string, NonNullable<ResourceDefinition['complete']>> = {
  'flow://flows/{name}': async (deps, caller) => {
    const listing = await callTool(deps, ROLES.listsFlows, { everywhere: true }, caller);
    return (listing.flows as { name: string }[]).map((f) => f.name);
  },
};
