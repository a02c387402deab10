import { z } from 'zod';
import { BadRequest } from '../../errors.js';
import { defineTool } from '../capability.js';
import type { FlowsView } from '../flows-view.js';
import { MAX_DOCUMENT_BYTES, MAX_DRAFT_CALLS, MAX_REPORT_BYTES } from '../../limits.js';

const flowName = z.string().min(1).max(64);
const revision = z.string().min(1).max(64).describe('from get_flow');

const listing = z.object({
  name: z.string(),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  urls: z.array(z.string()).optional(),
  shared: z.boolean(),
  problem: z.string().optional(),
});

const stepReport = z.object({
  n: z.number(),
  id: z.string().nullable(),
  tool: z.string(),
  ok: z.boolean(),
  summary: z.string(),
  selector_used: z.number().optional().describe("which of the step's selector alternatives matched (0 is the first)"),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
});

const runReport = z.object({
  flow: z.string(),
  status: z.enum(['ok', 'failed']),
  steps_run: z.number(),
  steps_total: z.number(),
  steps: z.array(stepReport),
  returned: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  url: z.string().optional(),
  title: z.string().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  failed: z
    .object({
      n: z.number(),
      id: z.string().nullable(),
      tool: z.string(),
      error: z.object({ code: z.string(), message: z.string() }),
      url: z.string().nullable(),
    })
    .optional(),
  omitted: z
    .array(z.string())
    .optional()
    .describe(
      `steps whose results were left out: the report holds at most ${MAX_REPORT_BYTES} bytes of them; return fewer or smaller`,
    ),
});

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
  input: z.object({ everywhere: z.boolean().optional().describe("not only this page's") }),
  output: z.object({ flows: z.array(listing) }),
  handler: async (args, { flows }) => ({ flows: await flowsOf(flows).list(args.everywhere ?? false) }),
});

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
  output: z.object({
    name: z.string(),
    shared: z.boolean(),
    revision: z.string(),
    text: z.string().describe('the YAML as stored, comments included'),
    document: z.record(z.string(), z.unknown()).nullable(),
    problem: z.string().optional().describe('why this flow cannot run as stored'),
  }),
  handler: async (args, { flows }) => ({ ...(await flowsOf(flows).get(args.name)) }),
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
      .union([
        z
          .string()
          .min(1)
          .max(
            MAX_DOCUMENT_BYTES,
            `a flow is at most ${MAX_DOCUMENT_BYTES / 1024} KiB (the document limit); split it into smaller flows`,
          ),
        z.record(z.string(), z.unknown()),
      ])
      .describe('YAML, or as JSON'),
    if_match: revision.optional(),
  }),
  output: z.object({ name: z.string(), revision: z.string(), created: z.boolean() }),
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
  handler: async (args, { flows }) =>
    runReport.parse(await flowsOf(flows).run(args.name, args.params ?? {}, args.verbose ?? false)),
});

const lastCalls = `how many of the workspace's recent calls to draft from: 1 to ${MAX_DRAFT_CALLS}`;

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
    last: z.number().int(lastCalls).min(1, lastCalls).max(MAX_DRAFT_CALLS, lastCalls),
    name: flowName.optional().describe('to save it as'),
  }),
  output: z.object({
    name: z.string().nullable(),
    yaml: z.string().describe('the document as YAML: read it, then save_flow it'),
    document: z.record(z.string(), z.unknown()),
    parameters: z.array(z.string()).describe('what the typed text became'),
    calls: z.number(),
    duplicates_dropped: z.number(),
  }),
  handler: async (args, { flows }) => ({ ...(await flowsOf(flows).draft(args.last, args.name)) }),
});

export default [runFlowTool, saveFlow, deleteFlow, listFlows, getFlow, draftFlowTool];
