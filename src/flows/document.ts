import { isJsonObject } from '../json.js';
import { z } from 'zod';
import type { Capability } from '../capabilities/capability.js';
import { issueSentence, keyName } from '../capabilities/issues.js';
import { valueAt } from '../capabilities/schemas.js';
import { toJsonSchema } from '../capabilities/json-schema.js';
import { BadRequest, InvalidFlow, stepAt } from '../errors.js';
import { checkParameters, refusedAt, validatorOf, type JsonSchemaObject } from './parameters.js';
import { parametersReadBy, referencesIn, STEP_PREFIX } from './references.js';
import { checkStepArguments } from './step-arguments.js';
import { checkDepth, readYamlText } from './yaml-text.js';

const MAX_STEPS = 200;
export const MAX_URL_GLOBS = 50;
export const MAX_GLOB_LENGTH = 2048;
/** Matching costs grow with the number of `*`: a glob needs few, a pathological one many. */
export const MAX_GLOB_STARS = 16;

const urlGlob = z
  .string()
  .min(1)
  .max(MAX_GLOB_LENGTH)
  .refine(
    (glob) => glob.split('*').length - 1 <= MAX_GLOB_STARS,
    `must hold at most ${MAX_GLOB_STARS} "*"; write a glob with fewer`,
  );

/** What a step has besides its tool and args: the frame checks them, the published schema shows them. */
const stepKeys = {
  id: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
      'must be a letter then letters, digits, "_" or "-", at most 64 in all; rename the step',
    )
    .optional()
    .describe('unique in the flow; names the step in the report'),
  onError: z
    .enum(['abort', 'continue'])
    .optional()
    .describe('abort (default) stops the run; continue marks the step failed and goes on'),
  return: z.boolean().optional().describe("include this step's full result in the report"),
  note: z.string().optional().describe('a comment for people'),
};

const stepFrame = z.strictObject({
  tool: z.string().min(1, 'must name the tool the step calls, such as navigate'),
  args: z.record(z.string(), z.unknown()).optional(),
  ...stepKeys,
});

/** The document's keys but its steps, which are checked one by one against their tools' rows. */
const documentKeys = {
  name: z.string().optional().describe('optional; the stored name is authoritative'),
  description: z.string().max(2000).optional(),
  urls: z
    .array(urlGlob, { error: 'urls must be a list of URL globs (strings)' })
    .max(MAX_URL_GLOBS, `must hold at most ${MAX_URL_GLOBS} globs; a flow meant for more places can omit urls`)
    .optional()
    .describe('URL globs where the flow is relevant (* = any characters)'),
  parameters: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('a JSON Schema object; each property is a ${name} the steps may use ($${ writes a literal ${)'),
};

const steps = <T extends z.ZodType>(step: T) =>
  z
    .array(step)
    .min(
      1,
      'must hold at least one step; add the first tool call the flow makes, such as {tool: navigate, args: {url: …}}',
    )
    .max(
      MAX_STEPS,
      `must hold at most ${MAX_STEPS} steps; split the work into flows of ${MAX_STEPS} steps or fewer, run one after another`,
    );

const documentFrame = z.strictObject({ ...documentKeys, steps: steps(z.unknown()) });

export type FlowStep = Omit<z.infer<typeof stepFrame>, 'args'> & { args: Record<string, unknown> };

export type FlowDocument = Omit<z.infer<typeof documentFrame>, 'parameters' | 'steps'> & {
  parameters?: JsonSchemaObject;
  steps: FlowStep[];
};

/**
 * The whole document as zod, derived from the capability table: each step is one of the
 * runnable tools, with that tool's own step arguments. What flow://schema publishes is this,
 * rendered; parseFlow checks the same keys (and words each refusal for the step it is in).
 */
export function flowDocumentSchema(capabilities: readonly Capability[]) {
  const runnable = capabilities
    .filter((c) => c.runnableInFlow)
    .map((c) => z.strictObject({ tool: z.literal(c.name), args: c.stepArgs.optional(), ...stepKeys }));
  const [first, ...rest] = runnable;
  if (!first) {
    throw new Error('No tool may be a flow step, so no flow can be written.');
  }
  return z
    .strictObject({ ...documentKeys, steps: steps(z.discriminatedUnion('tool', [first, ...rest])) })
    .meta({ title: 'selenium-flow flow document' });
}

/**
 * Reads a flow from YAML text (or an already-parsed object) and validates it against the
 * capability table. Every refusal names the step and the fix; nothing here repairs a document.
 */
export function parseFlow(source: string | Record<string, unknown>, capabilities: readonly Capability[]): FlowDocument {
  const raw = typeof source === 'string' ? readYamlText(source) : source;
  checkDepth(raw);
  const frame = documentFrame.safeParse(raw);
  if (!frame.success) {
    const issue = frame.error.issues[0];
    throw new InvalidFlow(
      `Invalid flow: ${frameRefusal(issue, raw, 'the document', documentFrame)}`,
      issue && issue.code !== 'unrecognized_keys' ? { path: issue.path } : undefined,
    );
  }
  const parameters = frame.data.parameters === undefined ? undefined : checkParameters(frame.data.parameters);
  const declared = new Set(Object.keys(parameters?.properties ?? {}));
  const byName = new Map(capabilities.map((c) => [c.name, c]));
  const ids = new Set<string>();
  const allIds = idsOf(frame.data.steps);
  const steps = frame.data.steps.map((rawStep, index) => {
    const step = checkStep(rawStep, index + 1, byName, declared, { earlier: ids, all: allIds });
    if (step.id !== undefined) {
      if (ids.has(step.id)) {
        throw new InvalidFlow(
          `Invalid flow: step ${index + 1}: the id "${step.id}" is already used by an earlier step; ids must be unique.`,
          stepAt(index + 1),
        );
      }
      ids.add(step.id);
    }
    return step;
  });
  return { ...frame.data, parameters, steps };
}

/**
 * The sentence for a document or step that fails its frame, in the words a tool's argument
 * gets: the key (after `whole`, the step or the document), the rule and the fix; an unknown key
 * is named only where it is shaped like a name.
 */
function frameRefusal(issue: z.core.$ZodIssue | undefined, given: unknown, whole: string, frame: z.ZodObject): string {
  const keys = Object.keys(frame.shape).join(', ');
  if (!issue) {
    return `${whole} does not have the shape flow://schema gives; a flow document has ${keys}.`;
  }
  const where = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    return `${whole}: unknown key ${issue.keys.map(keyName).join(', ')}; ${whole === 'the document' ? 'a flow document' : 'a step'} has only ${keys}.`;
  }
  const sentence = issueSentence(issue, where || whole, valueAt(given, issue.path));
  return where ? `${whole === 'the document' ? '' : `${whole}: `}${sentence}` : sentence;
}

/** Every step id, so a reference to a later step is told apart from one to no step at all. */
function idsOf(steps: unknown[]): Set<string> {
  return new Set(steps.flatMap((s) => (isJsonObject(s) && typeof s.id === 'string' ? [s.id] : [])));
}

interface StepIds {
  /** ids of the steps before this one: the only ones whose value exists when it runs */
  earlier: Set<string>;
  all: Set<string>;
}

function checkStep(
  rawStep: unknown,
  n: number,
  byName: Map<string, Capability>,
  declared: Set<string>,
  ids: StepIds,
): FlowStep {
  const frame = stepFrame.safeParse(rawStep);
  if (!frame.success) {
    throw new InvalidFlow(
      `Invalid flow: ${frameRefusal(frame.error.issues[0], rawStep, `step ${n}`, stepFrame)}`,
      stepAt(n),
    );
  }
  const step = { ...frame.data, args: frame.data.args ?? {} };
  const capability = byName.get(step.tool);
  const runnable = [...byName.values()].filter((c) => c.runnableInFlow).map((c) => c.name);
  if (!capability) {
    throw new InvalidFlow(
      `Invalid flow: step ${n}: unknown tool ${keyName(step.tool)}; a step may use ${runnable.join(', ')}.`,
      stepAt(n),
    );
  }
  if (!capability.runnableInFlow) {
    throw new InvalidFlow(
      `Invalid flow: step ${n}: ${step.tool} cannot be a flow step (a flow runs on the browser the caller already has, and never calls a flow); a step may use ${runnable.join(', ')}.`,
      stepAt(n),
    );
  }
  checkSecretReference(step.args, n);
  checkStepArguments(capability, step.args, n);
  for (const name of referencesIn(step.args)) {
    if (name.startsWith(STEP_PREFIX)) {
      checkStepReference(name.slice(STEP_PREFIX.length), n, ids);
    } else if (!declared.has(name)) {
      throw new InvalidFlow(
        `Invalid flow: step ${n}: \${${name}} is not a declared parameter; declare it under parameters.properties, or write $\${${name}} for a literal \${${name}}.`,
        stepAt(n),
      );
    }
  }
  return step;
}

function checkStepReference(id: string, n: number, ids: StepIds): void {
  if (ids.earlier.has(id)) {
    return;
  }
  const why = ids.all.has(id)
    ? `step "${id}" runs later, so it has no value yet; move it before step ${n}, or read an earlier step`
    : `no step has the id "${id}"; give the step whose value you want id: ${id}, before step ${n}`;
  throw new InvalidFlow(`Invalid flow: step ${n}: \${steps.${id}}: ${why}.`, stepAt(n));
}

/** A secret is named, never computed: a parameter inside its name or key could steer it. */
function checkSecretReference(args: Record<string, unknown>, n: number): void {
  const secret = args.secret;
  if (secret !== null && typeof secret === 'object' && referencesIn(secret).size > 0) {
    throw new InvalidFlow(
      `Invalid flow: step ${n}: a secret's name and key are written out, never \${parameters}; name the secret itself.`,
      stepAt(n),
    );
  }
}

/**
 * Before step one: every param names a declared parameter, then defaults are applied, the
 * params checked against `parameters`, and each parameter a step reads must have a value.
 * A step reads only names under `properties`, so any other (a typo, or one the schema's
 * `additionalProperties` lets through) would be dropped unread; a parameter read without a
 * value would reach the page as its own `${name}`, typed literally; and one that is no text
 * (an object, an array, null) as `[object Object]`, `1,[object Object]` or `null`.
 */
export function prepareParams(
  document: Pick<FlowDocument, 'parameters' | 'steps'>,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const { parameters } = document;
  checkDepth(given, 'params');
  const declared = Object.keys(parameters?.properties ?? {});
  const unknown = Object.keys(given).filter((name) => !declared.includes(name));
  if (unknown.length > 0) {
    throw new BadRequest(
      `Unknown parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: ${
        declared.length > 0
          ? `this flow takes ${declared.join(', ')}; pass only those.`
          : 'this flow takes no parameters; run it without params.'
      }`,
    );
  }
  const params = structuredClone(given);
  if (!parameters) {
    return params;
  }
  const validate = validatorOf(parameters);
  if (!validate(params)) {
    const errors = validate.errors ?? [];
    throw new BadRequest(
      errors.length > 0
        ? `Invalid params: ${refusedAt(errors, undefined, params)}`
        : "Invalid params: they do not meet the flow's parameters; pass what get_flow shows it takes.",
    );
  }
  const read = parametersReadBy(document.steps.map((s) => s.args));
  const unset = read.filter((name) => !Object.hasOwn(params, name));
  if (unset.length === 1) {
    throw new BadRequest(`Parameter ${unset[0]} has no value: pass it in params, or give it a default in the flow.`);
  }
  if (unset.length > 1) {
    throw new BadRequest(
      `Parameters ${unset.join(', ')} have no value: pass them in params, or give them defaults in the flow.`,
    );
  }
  for (const name of read) {
    const value = params[name];
    if (value === null || typeof value === 'object') {
      const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object';
      throw new BadRequest(
        `Parameter ${name} is ${kind}, but steps type parameters as text: pass ${name} as a string (JSON-encoded, if that is what the page wants).`,
      );
    }
  }
  return params;
}

/** The document schema as JSON Schema: what flow://schema publishes. */
export function flowDocumentJsonSchema(capabilities: readonly Capability[]): Record<string, unknown> {
  return toJsonSchema(flowDocumentSchema(capabilities), 'input');
}
