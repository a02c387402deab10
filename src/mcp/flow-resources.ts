import { callTool } from '../capabilities/call/call.js';
import { getFlow, listFlows } from '../capabilities/tools/flows.js';
import { flowDocumentJsonSchema } from '../flows/document.js';
import { CAPABILITIES } from '../capabilities/index.js';
import type { ResourceDefinition } from './resources.js';

const json = (uri: string, value: unknown) => [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }];

/** Reads are resources, writes are tools; each resource reads through its mirror tool. */
export const FLOW_RESOURCES: ResourceDefinition[] = [
  {
    uri: 'flow://here',
    name: 'flows here',
    title: 'Flows for this page',
    description: 'Saved flows whose urls match the page your browser is on (all flows when it is on none).',
    mimeType: 'application/json',
    read: async (deps, caller, uri) => json(uri, await callTool(deps, listFlows, {}, caller)),
  },
  {
    uri: 'flow://flows',
    name: 'flows',
    title: 'Every flow',
    description: 'Every saved flow you can run: yours and the shared ones, with their parameters.',
    mimeType: 'application/json',
    read: async (deps, caller, uri) => json(uri, await callTool(deps, listFlows, { everywhere: true }, caller)),
  },
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
  {
    template: 'flow://flows/{name}',
    name: 'flow',
    title: 'A flow',
    description: 'One flow: its document, its YAML text and its revision.',
    mimeType: 'application/json',
    read: async (deps, caller, uri, vars) => json(uri, await callTool(deps, getFlow, { name: vars.name }, caller)),
    complete: async (deps, caller) => {
      const listing = await callTool(deps, listFlows, { everywhere: true }, caller);
      return (listing.flows as { name: string }[]).map((f) => f.name);
    },
  },
];
