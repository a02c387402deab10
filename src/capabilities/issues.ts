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

/** Unknown keys are said back only where shaped like a name: text of any other shape may be a value, typed into the wrong place. */
const NAME_SHAPED = /^[A-Za-z_$][\w$.-]{0,63}$/;

/** A key the caller gave, as a refusal says it: quoted when it is shaped like a name, else by its kind only. */
export function keyName(key: string): string {
  return NAME_SHAPED.test(key) ? `"${key}"` : '(a key that is no name)';
}
