import { z } from 'zod';

/**
 * The admin API's flow answers (`/admin/api/workspaces/{workspace}/flows…`): the Flows tab's
 * list, one flow with its text and outline, and what a save, delete or move did.
 */

export const flowSummary = z.object({
  name: z.string(),
  library: z.string().describe('where it is stored: the workspace, or `global`'),
  shared: z.boolean().describe('true: from the global library'),
  shadowed: z.boolean().describe('a global flow this workspace hides with an own flow of the same name'),
  description: z.string().optional(),
  urls: z.array(z.string()).optional(),
  steps: z.number().int().nullable().describe('null when the stored file cannot be read'),
  secrets: z.boolean().describe('whether a step types a secret'),
  problem: z.string().optional().describe('why the stored file cannot run; the file is still listed'),
});

export const flowList = z.object({
  workspace: z.string(),
  flows: z.array(flowSummary).describe('own flows, then global ones, each by name'),
});

export const flowParameter = z.object({
  name: z.string(),
  type: z.string().nullable().describe('its JSON type (string, number, boolean, object, array); null: any'),
  required: z.boolean(),
  description: z.string().nullable(),
  used_by: z.array(z.number().int()).describe('1-based numbers of the steps that read ${name}; empty: unused'),
});

export const flowStepOutline = z.object({
  number: z.number().int().describe('1-based, as a run report says "step 3"'),
  id: z.string().nullable(),
  tool: z.string(),
  secret: z
    .object({ name: z.string(), key: z.string() })
    .nullable()
    .describe('the secret this step types (never its value)'),
  parameters: z.array(z.string()).describe('the parameters this step reads'),
  args: z.record(z.string(), z.unknown()),
  note: z.string().nullable(),
});

export const flowDetail = z.object({
  name: z.string(),
  library: z.string(),
  shared: z.boolean(),
  revision: z.string().describe('send it back as If-Match when saving; the ETag header carries it too'),
  text: z.string().describe('the YAML exactly as stored, comments and all: edit this, not a re-dump of document'),
  document: z.record(z.string(), z.unknown()).nullable().describe('parsed; null when the text cannot be read'),
  problem: z.string().optional(),
  problem_line: z.number().int().optional().describe('the 1-based line of the problem, when known'),
  outline: z
    .object({ parameters: z.array(flowParameter), steps: z.array(flowStepOutline) })
    .nullable()
    .describe('null when the text cannot be read'),
});

export const flowSaved = z.object({
  name: z.string(),
  library: z.string(),
  revision: z.string(),
  created: z.boolean(),
});

export const flowDeleted = z.object({ name: z.string(), library: z.string(), deleted: z.literal(true) });

export const flowMoved = z.object({
  name: z.string(),
  from: z.string(),
  to: z.string(),
  revision: z.string().describe('its revision where it landed'),
});

export const flowMoveRequest = z.strictObject({
  to: z.string().describe('`global`, or the name of a workspace'),
});

export type FlowSummary = z.infer<typeof flowSummary>;
export type FlowList = z.infer<typeof flowList>;
export type FlowParameter = z.infer<typeof flowParameter>;
export type FlowStepOutline = z.infer<typeof flowStepOutline>;
export type FlowDetail = z.infer<typeof flowDetail>;
export type FlowSaved = z.infer<typeof flowSaved>;
export type FlowDeleted = z.infer<typeof flowDeleted>;
export type FlowMoved = z.infer<typeof flowMoved>;
export type FlowMoveRequest = z.infer<typeof flowMoveRequest>;
