import { z } from 'zod';
import { MAX_REPORT_BYTES } from '../limits.js';

/**
 * What flows/ answers, declared once: the flow tools render these, and the types below are what
 * the library and the runner fill.
 */

const stepError = z.object({ code: z.string(), message: z.string() });

export const stepReport = z.object({
  n: z.number(),
  id: z.string().nullable(),
  tool: z.string(),
  ok: z.boolean(),
  summary: z.string(),
  selector_used: z.number().optional().describe("which of the step's selector alternatives matched (0 is the first)"),
  error: stepError.optional(),
  result: z.record(z.string(), z.unknown()).optional(),
});

export const runReport = z.object({
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
      error: stepError,
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

export const flowListing = z.object({
  name: z.string(),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  urls: z.array(z.string()).optional(),
  shared: z.boolean().describe('true when it comes from the shared `global` library'),
  problem: z
    .string()
    .optional()
    .describe('why the stored file cannot run (a hand edit gone wrong); the listing still shows it'),
});

export const flowRead = z.object({
  name: z.string(),
  shared: z.boolean(),
  revision: z.string(),
  text: z.string().describe('the YAML as stored, comments included'),
  document: z.record(z.string(), z.unknown()).nullable(),
  problem: z.string().optional().describe('why this flow cannot run as stored'),
});

export const flowSaved = z.object({ name: z.string(), revision: z.string(), created: z.boolean() });

/** A draft_flow answer: a document for review, never saved. */
export const flowDraft = z.object({
  name: z.string().nullable(),
  yaml: z.string().describe('the document as YAML: read it, then save_flow it'),
  document: z.record(z.string(), z.unknown()),
  parameters: z.array(z.string()).describe('what the typed text became'),
  calls: z.number().describe('how many calls it was drafted from, after duplicates were dropped'),
  duplicates_dropped: z.number(),
});

export type StepReport = z.infer<typeof stepReport>;
export type RunReport = z.infer<typeof runReport>;
export type FlowListing = z.infer<typeof flowListing>;
export type FlowRead = z.infer<typeof flowRead>;
export type FlowSaved = z.infer<typeof flowSaved>;
export type FlowDraft = z.infer<typeof flowDraft>;
