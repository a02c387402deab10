import { isJsonArray } from '../json.js';
/**
 * `${name}` parameters and `${steps.<id>}` step values in step arguments. Text only, single
 * pass: what was substituted is never rescanned, `$${` writes a literal `${` (JavaScript
 * template literals), and a name without a value is left as written. No declared parameter
 * reaches here without one (prepareParams refuses that run before step one), and `${window.scrollY}`
 * is not a reference at all.
 */
const TOKEN = /\$\$\{|\$\{(steps\.[A-Za-z][A-Za-z0-9_-]{0,63}|[A-Za-z_][A-Za-z0-9_]*)\}/g;

export const STEP_PREFIX = 'steps.';

export function referencesIn(value: unknown): Set<string> {
  const names = new Set<string>();
  visitStrings(value, (text) => {
    for (const match of text.matchAll(TOKEN)) {
      if (match[1]) {
        names.add(match[1]);
      }
    }
    return text;
  });
  return names;
}

/** The ids of the earlier steps a value reads (`${steps.<id>}`). */
export function stepsReadBy(value: unknown): string[] {
  return [...referencesIn(value)].filter((n) => n.startsWith(STEP_PREFIX)).map((n) => n.slice(STEP_PREFIX.length));
}

/** The flow parameters a value reads (`${name}`, not `${steps.<id>}`). */
export function parametersReadBy(value: unknown): string[] {
  return [...referencesIn(value)].filter((n) => !n.startsWith(STEP_PREFIX));
}

/** Whether a string holds a reference (so a rule about its final value must wait for the run). */
export function holdsReference(text: string): boolean {
  return [...text.matchAll(TOKEN)].some((m) => m[1] !== undefined);
}

export function substitute(args: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
  const fill = (text: string) =>
    text.replace(TOKEN, (token, name: string | undefined) => {
      if (name === undefined) {
        return '${';
      }
      return Object.hasOwn(params, name) ? String(params[name]) : token;
    });
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, visitStrings(v, fill)]));
}

/**
 * What `${steps.<id>}` reads of a step's result: the value it read (extract), the script's
 * answer (execute_script), every value one per line, else the result as JSON.
 */
export function stepValue(result: Record<string, unknown>): string {
  const { value, values } = result;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if ('result' in result) {
    return typeof result.result === 'string' ? result.result : (JSON.stringify(result.result) ?? '');
  }
  if (Array.isArray(values)) {
    return values.map((v) => (v === null ? '' : String(v))).join('\n');
  }
  return JSON.stringify(result);
}

function visitStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') {
    return fn(value);
  }
  if (isJsonArray(value)) {
    return value.map((item) => visitStrings(item, fn));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visitStrings(v, fn)]));
  }
  return value;
}
