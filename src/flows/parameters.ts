import { isJsonArray, isJsonObject } from '../json.js';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { createHash } from 'node:crypto';
import { schemaErrorSentence, type SchemaError } from '../capabilities/issues.js';
import { valueAt } from '../capabilities/schemas.js';
import { InvalidFlow, type FlowPlace } from '../errors.js';
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
    const errors = checker.errors ?? [];
    throw new InvalidFlow(
      errors.length > 0
        ? `Invalid flow: ${refusedAt(errors, 'parameters', parameters)}`
        : 'Invalid flow: parameters is not a valid JSON Schema; write it as {type: object, properties: {...}}.',
      { path: errors.length > 0 ? ['parameters', ...pathOf(deciding(errors))] : ['parameters'] },
    );
  }
}

/**
 * The error that says why: Ajv lists a failed anyOf's branches before the anyOf itself, so the
 * first error names one branch only ("must be string" where a number would do). Branches that
 * each wanted another type become one error naming all the types; where the value is of one
 * branch's type, that branch's error says why; otherwise the anyOf does.
 */
function deciding(errors: readonly SchemaError[]): SchemaError {
  const combinator = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const [first] = errors;
  if (!combinator || !first) {
    return first ?? { keyword: 'false schema', instancePath: '', params: {} };
  }
  const branches = errors.filter((e) => e !== combinator);
  const typed = branches.filter((e) => e.keyword === 'type');
  const fitting = branches.filter((e) => e.keyword !== 'type');
  if (combinator.keyword !== 'anyOf' || typed.some((e) => e.instancePath !== combinator.instancePath)) {
    return combinator;
  }
  if (fitting.length === 0) {
    return {
      ...combinator,
      keyword: 'type',
      params: { type: [...new Set(typed.map((e) => e.params.type))].join(',') },
    };
  }
  return fitting.length === 1 && fitting[0] ? fitting[0] : combinator;
}

/**
 * The sentence for a value a JSON Schema refused, named by its path under `root` (a param is
 * `email`, the meta-schema's `parameters.properties.a.type`): the rule and the fix in the words
 * a tool's argument gets.
 */
export function refusedAt(errors: readonly SchemaError[], root: string | undefined, data: unknown): string {
  const error = deciding(errors);
  const path = pathOf(error);
  const under = root === undefined ? path : [root, ...path];
  const name = under.join('.') || 'params';
  return schemaErrorSentence(error, name, valueAt(data, path), (key) => [...under, String(key)].join('.'));
}

/** The path of the value the deciding error is about (its JSON Pointer, unescaped). */
function pathOf(error: SchemaError): string[] {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
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
    const [oldest] = compiled.keys();
    if (oldest !== undefined) {
      compiled.delete(oldest);
    }
  }
  return validate;
}

function compile(parameters: Record<string, unknown>): ValidateFunction {
  try {
    return new (ajv2020().Ajv2020)(options).compile(structuredClone(parameters));
  } catch (err) {
    if (err instanceof re2js().RE2JSSyntaxException) {
      throw new InvalidFlow(
        `Invalid flow: parameters has a pattern RE2 cannot run (${err.message}); patterns here match in linear time, without lookaround or backreferences: rewrite it without them.`,
        PARAMETERS,
      );
    }
    throw new InvalidFlow(
      `Invalid flow: parameters cannot be compiled (${err instanceof Error ? err.message.split('\n')[0] : 'unknown'}); fix the schema.`,
      PARAMETERS,
    );
  }
}

/** For tests and the soak bench: how many validators are held now. */
export function compiledSchemaCount(): number {
  return compiled.size;
}

/** A flow's parameters: a JSON Schema of one object, its properties the names steps use as ${name}. */
export type JsonSchemaObject = { type: 'object' } & ToolInput;

/** What tool clients accept as an input schema: named properties, each a schema object. */
type ToolInput = {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
} & Record<string, unknown>;

/** A flow's parameters as a JSON Schema object that tool clients accept, or a 400 saying what to fix. */
export function checkParameters(parameters: Record<string, unknown>): JsonSchemaObject {
  if (parameters.type !== 'object') {
    throw new InvalidFlow(
      'Invalid flow: parameters must be a JSON Schema object: {type: object, properties: {...}, required: [...]}.',
      PARAMETERS,
    );
  }
  checkParameterSchema(parameters);
  checkToolInput(parameters);
  return { ...parameters, type: 'object' };
}

/** The document's parameters, where a refusal of the schema as a whole points. */
const PARAMETERS: FlowPlace = { path: ['parameters'] };

/** `why` begins with the key under parameters it is about (".properties.a …"), and `path` is that key. */
function refuse(why: string, path: string[] = []): never {
  throw new InvalidFlow(`Invalid flow: parameters${why.startsWith('.') ? '' : ' '}${why}.`, {
    path: ['parameters', ...path],
  });
}

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ROOT_COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', 'dependentSchemas'];

/**
 * A flow is also an MCP tool whose inputSchema is its parameters, so they must be what tool
 * clients accept: one object of named properties, with nothing a client has to resolve.
 */
function checkToolInput(parameters: Record<string, unknown>): asserts parameters is ToolInput {
  const root = ROOT_COMBINATORS.find((k) => k in parameters);
  if (root) {
    refuse(
      `has ${root} at the top, which tool clients do not accept as an input schema; describe each parameter under properties instead`,
    );
  }
  const properties = parameters.properties ?? {};
  if (!isJsonObject(properties)) {
    refuse('.properties must be an object: {name: {type: string}, …}', ['properties']);
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (!PARAMETER_NAME.test(name)) {
      refuse(
        `.properties.${name}: a parameter is used as \${${name}}, so its name is a letter or "_" then letters, digits or "_"; rename it`,
        ['properties', name],
      );
    }
    if (name === 'session_id') {
      refuse(
        '.properties.session_id: session_id is how a stateless caller names its browser on every tool; rename the parameter',
        ['properties', name],
      );
    }
    if (!isJsonObject(schema)) {
      refuse(`.properties.${name} must be a schema object, such as {type: string}`, ['properties', name]);
    }
  }
  const required = isJsonArray(parameters.required) ? parameters.required : [];
  const missing = required.find((name) => typeof name !== 'string' || !Object.hasOwn(properties, name));
  if (missing !== undefined) {
    refuse(`.required names ${JSON.stringify(missing)}, which is not under properties; declare it or drop it`, [
      'required',
    ]);
  }
  if (JSON.stringify(parameters).includes('"$ref"') || JSON.stringify(parameters).includes('"$dynamicRef"')) {
    refuse('use $ref, which tool clients do not resolve; write the referenced schema out in place');
  }
}
