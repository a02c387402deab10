import { z } from 'zod';
import { DEFAULT_WAIT_SECONDS } from '../browser/selectors.js';
import { FILE_NAME_RULE, isFileName } from '../files/names.js';
import { MAX_SELECTOR_CHARS, MAX_URL_CHARS } from '../limits.js';

export const SELECTOR_FIX = 'pass exactly one of css or xpath, e.g. {"css": "#submit"} or {"xpath": "//button[1]"}.';

// No message of their own: the sentence a bound gets says the length given and the fix.
const selectorText = z.string().min(1).max(MAX_SELECTOR_CHARS);

export const selector = z.union([z.strictObject({ css: selectorText }), z.strictObject({ xpath: selectorText })], {
  error: SELECTOR_FIX,
});

export const MAX_SELECTOR_ALTERNATIVES = 5;

/** One selector, or alternatives tried in order (the first that matches wins). */
const ALTERNATIVES_FIX = `a list of 1 to ${MAX_SELECTOR_ALTERNATIVES} selectors, tried in order`;

export const selectorList = z
  .array(selector)
  .min(1, `must be ${ALTERNATIVES_FIX} (got none); pass at least one`)
  .max(MAX_SELECTOR_ALTERNATIVES, `must be ${ALTERNATIVES_FIX}; pass the ${MAX_SELECTOR_ALTERNATIVES} likeliest`);

export const selectorChoice = z.union([selector, selectorList], {
  error: `${SELECTOR_FIX.replace(/\.$/, '')}; or ${ALTERNATIVES_FIX}.`,
});

export const waitTimeout = z.number().min(0).max(60).optional().describe(`s, default ${DEFAULT_WAIT_SECONDS}`);

const WEB_URL_FIX = 'must be an absolute http(s) URL such as https://example.com/';

/** Only web pages: file:, data:, javascript: and chrome: URLs would reach past the page. */
export const webUrl = z
  .string()
  .max(MAX_URL_CHARS)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, WEB_URL_FIX);

export const maxChars = (fallback: number) =>
  z.number().int().min(100).max(1_000_000).optional().describe(`default ${fallback}`);

/** The wait a row's `wait_timeout` asks for, in seconds. */
export const waitOf = (args: { wait_timeout?: number }) => args.wait_timeout ?? DEFAULT_WAIT_SECONDS;

/** The rule "pass exactly one of …", for a row's `check`. */
export const exactlyOne = (args: Record<string, unknown>, names: string[]) =>
  names.filter((n) => args[n] !== undefined).length === 1;

/**
 * An argument the row's `check` requires in this case: the check refused every call without it
 * (that refusal is the rule, said once), so its absence here is a bug in the row.
 */
export function checked<T>(value: T | undefined, name: string): T {
  if (value === undefined) {
    throw new Error(`${name} reached the handler without the value its row's check requires`);
  }
  return value;
}

const MAX_WINDOW_SIDE = 7680;

/**
 * A window's width, in CSS pixels. Neither browser opens a window narrower than 500 (both
 * made a 300 wide window 500 wide), so a smaller width would be remembered and never shown.
 */
export const windowWidth = z
  .number()
  .int()
  .min(500, 'width is at least 500, the narrowest window both browsers open; pass 500 or more')
  .max(MAX_WINDOW_SIDE);

/** A window's height, in CSS pixels. */
export const windowHeight = z.number().int().min(200).max(MAX_WINDOW_SIDE);

/** One rule for every name a file gets, so a name saved can always be listed, fetched and linked. */
export const fileNameArgument = z
  .string()
  .min(1)
  .max(255)
  .refine(isFileName, FILE_NAME_RULE)
  // A name a caller chooses is shown to people (the admin page, a download's name): one that
  // hides its ends or reorders its letters on screen (U+202E) would show as another file.
  .refine(
    (name) => name.trim() === name && !/[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/.test(name),
    'a name may not start or end with a space, nor hold invisible direction or format characters (U+200E, U+202A-U+202E, U+2066-U+2069, U+FEFF); name it in plain letters',
  );

/** The value at a zod issue's path, to tell a missing argument from a wrong one. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (node, key) =>
      node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined,
    value,
  );
}
