import { z } from 'zod';

/** What a zod type or format is called in a sentence a model reads. */
const KIND: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  // z.record, and what JSON Schema calls an object
  record: 'an object',
  integer: 'a whole number',
  null: 'null',
};

const FORMAT: Record<string, string> = {
  url: 'a URL',
  email: 'an email address',
  base64: 'base64 text',
  base64url: 'base64url text',
  uuid: 'a UUID',
  datetime: 'an ISO 8601 date and time',
  date: 'an ISO 8601 date',
  time: 'an ISO 8601 time',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

let english: z.core.$ZodConfig['localeError'] | undefined;

/**
 * Whether zod wrote this message itself: a schema's own message already says its rule and fix
 * in this project's words, and is kept as written.
 */
function zodWrote(issue: z.core.$ZodIssue, given: unknown): boolean {
  english ??= z.locales.en().localeError;
  // Only the type's message reads the input ("received string"); the others' types narrow it.
  const written = english?.(
    issue.code === 'invalid_type' ? { ...issue, input: given } : { ...issue, input: undefined },
  );
  return (typeof written === 'string' ? written : written?.message) === issue.message;
}

/** What was given, by its kind only: the value may be what a person typed, or name a secret. */
function kindOf(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'a list';
  }
  return typeof value === 'object' ? 'an object' : typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}

/** A number is said back only where the argument itself is a number, which never carries text. */
const got = (value: unknown) => (typeof value === 'number' ? ` (got ${value})` : '');

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) {
    return value.length;
  }
  return undefined;
}

function bound(issue: z.core.$ZodIssue, name: string, given: unknown): string | undefined {
  if (issue.code !== 'too_big' && issue.code !== 'too_small') {
    return undefined;
  }
  const big = issue.code === 'too_big';
  const limit = big ? issue.maximum : issue.minimum;
  if (issue.origin === 'number' || issue.origin === 'bigint') {
    const rule = issue.inclusive ? (big ? 'at most' : 'at least') : big ? 'less than' : 'more than';
    return `${name} must be ${rule} ${String(limit)}${got(given)}; pass a ${big ? 'smaller' : 'larger'} ${name}.`;
  }
  const size = sizeOf(given);
  const counted = size === undefined ? '' : ` (got ${size})`;
  const rule = issue.exact ? 'exactly' : big ? 'at most' : 'at least';
  if (issue.origin === 'string' && issue.exact) {
    return `${name} must be exactly ${String(limit)} characters long${counted}; pass ${String(limit)} characters.`;
  }
  if (issue.origin === 'string') {
    if (!big && size === 0) {
      return `${name} is empty; pass at least ${String(limit)} character${limit === 1 ? '' : 's'}.`;
    }
    return `${name} must be ${rule} ${String(limit)} characters long${counted}; pass a ${big ? 'shorter' : 'longer'} ${name}.`;
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    return `${name} must hold ${rule} ${String(limit)} item${limit === 1 ? '' : 's'}${counted}; pass ${big ? 'fewer' : 'more'}.`;
  }
  return undefined;
}

function zodSentence(issue: z.core.$ZodIssue, name: string, given: unknown): string | undefined {
  switch (issue.code) {
    case 'too_big':
    case 'too_small':
      return bound(issue, name, given);
    case 'invalid_type': {
      const kind = KIND[issue.expected] ?? issue.expected;
      const numeric = typeof given === 'number' && (issue.expected === 'int' || issue.expected === 'number');
      return `${name} must be ${kind} (got ${numeric ? String(given) : kindOf(given)}); pass ${kind}.`;
    }
    case 'invalid_value':
      return `${name} must be ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'not_multiple_of':
      return `${name} must be a multiple of ${String(issue.divisor)}${got(given)}; pass one.`;
    case 'invalid_format': {
      if (issue.format === 'regex' && issue.pattern) {
        return `${name} must match ${issue.pattern}; pass ${name} in that form.`;
      }
      const affix =
        'prefix' in issue
          ? `start with ${JSON.stringify(issue.prefix)}`
          : 'suffix' in issue
            ? `end with ${JSON.stringify(issue.suffix)}`
            : 'includes' in issue
              ? `include ${JSON.stringify(issue.includes)}`
              : `be ${FORMAT[issue.format] ?? `in the ${issue.format} format`}`;
      return `${name} must ${affix}; pass ${name} in that form.`;
    }
    default:
      return undefined;
  }
}

/**
 * One sentence for an argument zod refused: its name, the rule (a bound, a type, a form), what
 * was given where it may be said back, and the fix. A schema's own message is kept, after the
 * argument's name unless it names it itself; one that begins "must" completes the name.
 */
export function issueSentence(issue: z.core.$ZodIssue, name: string, given: unknown): string {
  const own = zodWrote(issue, given) ? zodSentence(issue, name, given) : undefined;
  if (own) {
    return own;
  }
  const message = issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
  if (!name) {
    return message;
  }
  if (message.startsWith(`${name} `)) {
    return message;
  }
  return message.startsWith('must ') ? `${name} ${message}` : `${name}: ${message}`;
}

/** What an issue of a JSON Schema validator (Ajv) carries: its keyword and that keyword's params. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

const BOUNDS: Record<string, { code: 'too_big' | 'too_small'; origin: string; inclusive: boolean }> = {
  maxLength: { code: 'too_big', origin: 'string', inclusive: true },
  minLength: { code: 'too_small', origin: 'string', inclusive: true },
  maxItems: { code: 'too_big', origin: 'array', inclusive: true },
  minItems: { code: 'too_small', origin: 'array', inclusive: true },
  maximum: { code: 'too_big', origin: 'number', inclusive: true },
  minimum: { code: 'too_small', origin: 'number', inclusive: true },
  exclusiveMaximum: { code: 'too_big', origin: 'number', inclusive: false },
  exclusiveMinimum: { code: 'too_small', origin: 'number', inclusive: false },
};

const isPrimitive = (value: unknown): value is z.core.util.Primitive =>
  value === null || (typeof value !== 'object' && typeof value !== 'function');

/** The same rule as a zod issue, where zod has one: then the sentence is the one a tool's argument gets. */
function asZodIssue({ keyword, params }: SchemaError): z.core.$ZodIssue | undefined {
  const base = { path: [], message: '', input: undefined };
  const bound = BOUNDS[keyword];
  const limit = params.limit;
  if (bound && typeof limit === 'number') {
    return bound.code === 'too_big'
      ? { ...base, code: 'too_big', origin: bound.origin, maximum: limit, inclusive: bound.inclusive }
      : { ...base, code: 'too_small', origin: bound.origin, minimum: limit, inclusive: bound.inclusive };
  }
  if (keyword === 'type' && typeof params.type === 'string' && !params.type.includes(',')) {
    return { ...base, code: 'invalid_type', expected: params.type === 'integer' ? 'int' : params.type };
  }
  const allowed: unknown[] | undefined =
    keyword === 'enum' && Array.isArray(params.allowedValues)
      ? params.allowedValues
      : keyword === 'const'
        ? [params.allowedValue]
        : undefined;
  // An object or a list among them is no value to name in a sentence: the sentence below says the keyword.
  if (allowed?.every(isPrimitive)) {
    return { ...base, code: 'invalid_value', values: allowed };
  }
  if (keyword === 'multipleOf' && typeof params.multipleOf === 'number') {
    return { ...base, code: 'not_multiple_of', divisor: params.multipleOf };
  }
  if (keyword === 'pattern' && typeof params.pattern === 'string') {
    return { ...base, code: 'invalid_format', format: 'regex', pattern: params.pattern };
  }
  if (keyword === 'format' && typeof params.format === 'string') {
    return { ...base, code: 'invalid_format', format: params.format };
  }
  return undefined;
}

/**
 * One sentence for a value a JSON Schema refused (a flow's params against its parameters, or
 * the parameters against the meta-schema), in the words a tool's argument gets: the name, the
 * rule, and the fix. Never Ajv's own text ("must NOT have more than 5 characters"), which says
 * no fix; `given` is the refused value, said back only where it is a number, and `child` names
 * a key of it (a missing property).
 */
export function schemaErrorSentence(
  error: SchemaError,
  name: string,
  given: unknown,
  child: (key: unknown) => string = (key) => `${name}.${String(key)}`,
): string {
  const issue = asZodIssue(error);
  const own = issue && zodSentence(issue, name, given);
  if (own) {
    return own;
  }
  const { keyword, params } = error;
  switch (keyword) {
    case 'type': {
      const kinds = String(params.type)
        .split(',')
        .map((type) => KIND[type] ?? type)
        .join(' or ');
      return `${name} must be ${kinds} (got ${typeof given === 'number' ? String(given) : kindOf(given)}); pass ${kinds}.`;
    }
    case 'required':
      return `${child(params.missingProperty)} is required; pass ${child(params.missingProperty)}.`;
    case 'dependentRequired':
      return `${child(params.missingProperty)} is required with ${child(params.property)}; pass both, or neither.`;
    case 'additionalProperties':
      return `${name} takes no key ${keyName(String(params.additionalProperty))}; drop it.`;
    case 'propertyNames':
      return `${name} has a key its schema does not allow; rename or drop it.`;
    case 'maxProperties':
    case 'minProperties': {
      const big = keyword === 'maxProperties';
      return `${name} must have ${big ? 'at most' : 'at least'} ${String(params.limit)} keys; pass ${big ? 'fewer' : 'more'}.`;
    }
    case 'uniqueItems':
      return `${name} must hold no item twice (items ${String(params.j)} and ${String(params.i)} are equal); drop one.`;
    case 'anyOf':
    case 'oneOf':
      return Array.isArray(params.passingSchemas)
        ? `${name} matches more than one of the forms its schema allows (oneOf), which must be exactly one; pass a value only one takes.`
        : `${name} matches none of the forms its schema allows (${keyword}); pass a value one of them takes.`;
    case 'not':
      return `${name} is a value its schema rules out (not); pass another.`;
    case 'enum':
    case 'const':
      return `${name} is not a value its schema allows (${keyword}); pass one it lists.`;
    default:
      return `${name} does not meet its schema's ${keyword}; pass a value the schema takes.`;
  }
}

/** Unknown keys are said back only where shaped like a name: text of any other shape may be a value, typed into the wrong place. */
const NAME_SHAPED = /^[A-Za-z_$][\w$.-]{0,63}$/;

/** A key the caller gave, as a refusal says it: quoted when it is shaped like a name, else by its kind only. */
export function keyName(key: string): string {
  return NAME_SHAPED.test(key) ? `"${key}"` : '(a key that is no name)';
}
