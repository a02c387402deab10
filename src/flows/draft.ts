import { isJsonArray, isJsonObject } from '../json.js';
import type { Capability } from '../capabilities/capability.js';
import { yaml } from '../lazy.js';
import { BadRequest } from '../errors.js';
import type { RecentCall } from '../workspace/recent.js';
import type { FlowDraft } from './answers.js';
import type { FlowDocument, FlowStep } from './document.js';
import type { JsonSchemaObject } from './parameters.js';

/** draft_flow's answer before the library names it, with the document still typed. */
export type Draft = Omit<FlowDraft, 'name' | 'document'> & { document: FlowDocument };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})$/;

/**
 * A flow document from the workspace's last calls. Text the agent typed is input, so it becomes
 * a declared parameter (its typed value the default) and every later literal use of it reads
 * the parameter; a bound secret stays a `secret:` reference; a call repeating the one before it
 * is dropped. Failed calls were never recorded. Nothing is saved.
 */
export function draftFlow(
  recorded: readonly RecentCall[],
  last: number,
  name: string | undefined,
  capabilities: readonly Capability[],
): Draft {
  if (recorded.length === 0) {
    throw new BadRequest(
      'Nothing is recorded in this workspace yet: draft_flow drafts from the calls it made (navigate, write, interact, reads that found something); make them, then call draft_flow again.',
    );
  }
  const taken = recorded.slice(-last);
  const calls = taken.filter((call, i) => {
    const previous = taken[i - 1];
    return !previous || !sameCall(call, previous);
  });
  const properties: Record<string, Record<string, unknown>> = {};
  const values = new Map<string, string>();
  const facts = new Map(capabilities.map((c) => [c.name, c.draft]));
  let reads = 0;
  const steps: FlowStep[] = calls.map((call) => {
    const args = structuredClone(call.args);
    const step: FlowStep = { tool: call.tool, args };
    const { input, returns = false } = facts.get(call.tool) ?? {};
    const typed = input === undefined ? undefined : args[input];
    if (input !== undefined && typeof typed === 'string' && typed !== '') {
      const parameter = parameterName(args.selector, properties);
      properties[parameter] = {
        type: 'string',
        description: describeInput(typed, args.selector),
        default: typed,
      };
      values.set(typed, parameter);
      args[input] = `\${${parameter}}`;
      return step;
    }
    Object.assign(args, withParameters(args, values));
    if (returns) {
      reads += 1;
      step.id = `read_${reads}`;
      step.return = true;
    }
    return step;
  });
  const parameters: JsonSchemaObject | undefined =
    Object.keys(properties).length > 0 ? { type: 'object', properties } : undefined;
  const document: FlowDocument = {
    description: `Drafted from the last ${calls.length} calls of this workspace`,
    ...(parameters ? { parameters } : {}),
    steps,
  };
  return {
    yaml: yamlOf(document, name, taken.length),
    document,
    parameters: Object.keys(properties),
    calls: calls.length,
    duplicates_dropped: taken.length - calls.length,
  };
}

function sameCall(a: RecentCall, b: RecentCall): boolean {
  return a.tool === b.tool && JSON.stringify(a.args) === JSON.stringify(b.args);
}

/** `#email` → email, `[name="q"]` → q, else text, each unique. */
function parameterName(selector: unknown, taken: Record<string, unknown>): string {
  const text = selectorText(selector);
  const found = /#([A-Za-z_][\w-]*)|name=["']?([A-Za-z_][\w-]*)|id=["']?([A-Za-z_][\w-]*)/.exec(text);
  const base = (found?.[1] ?? found?.[2] ?? found?.[3] ?? 'text').replace(/-/g, '_');
  let name = base;
  for (let n = 2; Object.hasOwn(taken, name); n++) {
    name = `${base}_${n}`;
  }
  return name;
}

function selectorText(selector: unknown): string {
  const first = isJsonArray(selector) ? selector[0] : selector;
  if (isJsonObject(first)) {
    const { css, xpath } = first;
    return typeof css === 'string' ? css : typeof xpath === 'string' ? xpath : '';
  }
  return '';
}

function describeInput(text: string, selector: unknown): string {
  const kind = EMAIL.test(text) ? 'an email' : DATE.test(text) ? 'a date' : 'text';
  return `${kind}, typed into ${selectorText(selector) || 'the field'}`;
}

/**
 * Literal text elsewhere (a URL with the search term in it) reads the parameter typed earlier;
 * any other `${` is written `$${`, so the draft means what was called.
 */
function withParameters(args: Record<string, unknown>, values: Map<string, string>): Record<string, unknown> {
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') {
      let text = value.replace(/\$\{/g, '$${');
      for (const [literal, parameter] of values) {
        if (literal.length >= 3) {
          text = text.split(literal).join(`\${${parameter}}`);
          text = text.split(encodeURIComponent(literal)).join(`\${${parameter}}`);
        }
      }
      return text;
    }
    if (Array.isArray(value)) {
      return value.map(visit);
    }
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    }
    return value;
  };
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, visit(v)]));
}

function yamlOf(document: FlowDocument, name: string | undefined, taken: number): string {
  const draft = new (yaml().Document)(name ? { name, ...document } : document);
  draft.commentBefore = ` Drafted by draft_flow from the last ${taken} recorded calls: review it, then save it with save_flow.`;
  return draft.toString({ lineWidth: 0 });
}
