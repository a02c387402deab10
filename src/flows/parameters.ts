import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { createHash } from 'node:crypto';
import { BadRequest } from '../errors.js';
import { ajv2020, re2js } from '../lazy.js';

/** Flows with parameters whose compiled validators stay in memory; a miss costs one compile (~10 ms). */
export const COMPILED_SCHEMAS_KEPT = 64;

/**
 * A flow's `pattern`s come from outside and are matched against arguments from outside: the
 * JavaScript engine backtracks (`^(a+)+$` on 31 characters froze the server for 12 s, doubling
 * with each one), RE2 matches in time linear in the text. Its syntax lacks lookaround and
 * backreferences, the constructs that need backtracking; a pattern using them is refused at save.
 */
const linearRegExp: RegExpEngine = Object.assign((pattern: string) => re2js().RE2JS.compile(re2Syntax(pattern)), {
  code: 'RE2JS.compile',
});

/**
 * JSON Schema patterns are ECMA-262, where a code point is written `\u00e9` or `\u{1F600}`; RE2
 * writes both `\x{…}`. Everything else is passed through, escapes included.
 */
export function re2Syntax(pattern: string): string {
  return pattern.replace(
    /\\(?:u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]{1,6})\}|[^])/g,
    (escape, four?: string, braced?: string) => {
      const hex = four ?? braced;
      return hex === undefined ? escape : `\\x{${hex}}`;
    },
  );
}

const options = {
  allErrors: false,
  strict: false,
  useDefaults: true,
  logger: false,
  code: { regExp: linearRegExp },
} as const;

/** Only ever checks schemas against the meta-schema: nothing is compiled into it, so it never grows. */
let metaChecker: Ajv2020 | undefined;

/**
 * Compiled validators by schema. Each has an Ajv of its own: Ajv keeps every schema it compiles
 * (and registers its `$id`) for its lifetime, so one shared instance grew with every run and
 * refused a second schema with the same `$id`. Dropping an entry drops its Ajv with it.
 */
const compiled = new Map<string, ValidateFunction>();

/** Against the meta-schema only, without compiling: cheap enough for every listing. */
export function checkParameterSchema(parameters: Record<string, unknown>): void {
  const checker = (metaChecker ??= new (ajv2020().Ajv2020)(options));
  if (!checker.validateSchema(parameters)) {
    const error = checker.errors?.[0];
    throw new BadRequest(
      `Invalid flow: parameters is not a valid JSON Schema (${error?.instancePath || '/'} ${error?.message ?? ''}).`,
    );
  }
}

/**
 * The validator for a flow's parameters, compiled on first use and kept while it is among the
 * most recently used; save calls it too, so a pattern RE2 cannot run is refused then, not at run.
 */
export function validatorOf(parameters: Record<string, unknown>): ValidateFunction {
  const key = createHash('sha256').update(JSON.stringify(parameters)).digest('base64');
  const hit = compiled.get(key);
  if (hit) {
    // Map order is insertion order: re-inserting marks it most recently used.
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const validate = compile(parameters);
  compiled.set(key, validate);
  if (compiled.size > COMPILED_SCHEMAS_KEPT) {
    compiled.delete(compiled.keys().next().value as string);
  }
  return validate;
}

function compile(parameters: Record<string, unknown>): ValidateFunction {
  try {
    return new (ajv2020().Ajv2020)(options).compile(structuredClone(parameters));
  } catch (err) {
    if (err instanceof re2js().RE2JSSyntaxException) {
      throw new BadRequest(
        `Invalid flow: parameters has a pattern RE2 cannot run (${err.message}); patterns here match in linear time, without lookaround or backreferences: rewrite it without them.`,
      );
    }
    throw new BadRequest(
      `Invalid flow: parameters cannot be compiled (${err instanceof Error ? err.message.split('\n')[0] : 'unknown'}); fix the schema.`,
    );
  }
}

/** For tests and the soak bench: how many validators are held now. */
export function compiledSchemaCount(): number {
  return compiled.size;
}
