import { z } from 'zod';
import { BadRequest } from '../../errors.js';
import { defineTool } from '../capability.js';
import { webUrl } from '../schemas.js';
import type { FlowsView } from '../../flows/view.js';
import { flowDraft, flowListing, flowRead, flowSaved, runReport, type FlowListing } from '../../flows/answers.js';
import { MAX_DOCUMENT_BYTES, MAX_DRAFT_CALLS, MAX_FLOW_LIST_BYTES } from '../../limits.js';

const flowName = z.string().min(1).max(64);
const revision = z.string().min(1).max(64).describe('from get_flow');

/** Flows are off without a data directory: say how to turn them on. */
export function flowsOf(flows: FlowsView | undefined): FlowsView {
  if (!flows) {
    throw new BadRequest('Flows need a data directory; start the server with FLOW_DATA_DIR (npm start uses ./data).');
  }
  return flows;
}

export const listFlows = defineTool({
  name: 'list_flows',
  title: 'List flows',
  description: 'Mirror of flow://here; everywhere: flow://flows.',
  kind: 'read',
  attach: 'none',
  takesTurn: false,
  runnableInFlow: false,
  mirrors: [
    {
      uri: 'flow://here',
      name: 'flows here',
      title: 'Flows for this page',
      description: 'Saved flows whose urls match the page your browser is on (all flows when it is on none).',
    },
    {
      uri: 'flow://flows',
      args: { everywhere: true },
      name: 'flows',
      title: 'Every flow',
      description: 'Every saved flow you can run: yours and the shared ones, with their parameters.',
    },
  ],
  answersUnderControl: true,
  http: { method: 'GET', path: '/flows' },
  input: z.object({
    everywhere: z.boolean().optional().describe("not only this page's"),
    url: webUrl.optional().describe("this page's instead"),
  }),
  check: (args) =>
    args.everywhere && args.url !== undefined
      ? 'Pass url (the flows for that page) or everywhere (every flow), not both.'
      : undefined,
  output: z.object({
    flows: z.array(flowListing),
    left_out: z.number().optional().describe("flows past its 32 KiB, listed by name: pass url for one page's"),
  }),
  handler: async (args, { flows }) => boundedListing(await flowsOf(flows).list(args.everywhere ?? false, args.url)),
});

/**
 * The listing, in name order, while it fits MAX_FLOW_LIST_BYTES: a library holds up to 1,000
 * flows, and a model reads the whole answer.
 */
function boundedListing(all: FlowListing[]): { flows: FlowListing[]; left_out?: number } {
  const flows: FlowListing[] = [];
  let bytes = 0;
  for (const flow of all) {
    bytes += Buffer.byteLength(JSON.stringify(flow)) + 1;
    if (bytes > MAX_FLOW_LIST_BYTES) {
      return { flows, left_out: all.length - flows.length };
    }
    flows.push(flow);
  }
  return { flows };
}

export const getFlow = defineTool({
  name: 'get_flow',
  title: 'Read a flow',
  description: 'Mirror of flow://flows/{name}.',
  kind: 'read',
  attach: 'none',
  takesTurn: false,
  runnableInFlow: false,
  mirrors: {
    uri: 'flow://flows/{name}',
    name: 'flow',
    title: 'A flow',
    description: 'One flow: its document, its YAML text and its revision.',
  },
  answersUnderControl: true,
  http: { method: 'GET', path: '/flows/{name}' },
  input: z.object({ name: flowName }),
  output: flowRead,
  handler: async (args, { flows }) => flowsOf(flows).get(args.name),
});

export const saveFlow = defineTool({
  name: 'save_flow',
  title: 'Save a flow',
  description: 'Create or replace a flow (schema: flow://schema).',
  kind: 'act',
  destructive: false,
  attach: 'none',
  takesTurn: false,
  runnableInFlow: false,
  // never commands the browser
  answersUnderControl: true,
  http: { method: 'PUT', path: '/flows/{name}', bodyArgument: 'document', ifMatchArgument: 'if_match' },
  input: z.object({
    name: flowName,
    document: z
      .union(
        [
          z
            .string()
            .min(1, 'must not be empty; pass the flow as YAML text or as a JSON object')
            .max(
              MAX_DOCUMENT_BYTES,
              `must be at most ${MAX_DOCUMENT_BYTES / 1024} KiB (the document limit); split it into smaller flows`,
            ),
          z.record(z.string(), z.unknown()),
        ],
        {
          error: 'must be the flow as YAML text or as a JSON object (flow://schema gives its shape); pass one of those',
        },
      )
      .describe('YAML, or as JSON'),
    if_match: revision.optional(),
  }),
  output: flowSaved,
  handler: async (args, { flows }) => flowsOf(flows).save(args.name, args.document, args.if_match),
});

export const deleteFlow = defineTool({
  name: 'delete_flow',
  title: 'Delete a flow',
  description: 'Delete a flow of your library.',
  kind: 'act',
  attach: 'none',
  takesTurn: false,
  runnableInFlow: false,
  // never commands the browser
  answersUnderControl: true,
  http: { method: 'DELETE', path: '/flows/{name}', ifMatchArgument: 'if_match' },
  input: z.object({ name: flowName, if_match: revision.optional() }),
  output: z.object({ deleted: z.boolean() }),
  handler: async (args, { flows }) => flowsOf(flows).delete(args.name, args.if_match),
});

export const runFlowTool = defineTool({
  name: 'run_flow',
  title: 'Run a flow',
  description: 'Run a saved flow; params fill its parameters.',
  kind: 'act',
  destructive: true,
  attach: 'none',
  boundsItself: true,
  usesSessionId: 'required',
  runnableInFlow: false,
  http: { method: 'POST', path: '/flows/{name}/run' },
  input: z.object({
    name: flowName,
    params: z.record(z.string(), z.unknown()).optional(),
    verbose: z.boolean().optional().describe("every step's full result"),
  }),
  output: runReport,
  handler: async (args, { flows }) => flowsOf(flows).run(args.name, args.params ?? {}, args.verbose ?? false),
});

export const draftFlowTool = defineTool({
  name: 'draft_flow',
  title: 'Draft a flow',
  description: 'Your last calls as a flow document, for save_flow.',
  kind: 'read',
  attach: 'none',
  takesTurn: false,
  runnableInFlow: false,
  answersUnderControl: true,
  http: { method: 'POST', path: '/flows/draft' },
  input: z.object({
    last: z.number().int().min(1).max(MAX_DRAFT_CALLS),
    name: flowName.optional().describe('to save it as'),
  }),
  output: flowDraft,
  handler: async (args, { flows }) => flowsOf(flows).draft(args.last, args.name),
});

export default [runFlowTool, saveFlow, deleteFlow, listFlows, getFlow, draftFlowTool];
