import { z } from 'zod';
import { DEFAULT_WAIT_SECONDS } from '../browser/selectors.js';

export const SELECTOR_FIX = 'pass exactly one of css or xpath, e.g. {"css": "#submit"} or {"xpath": "//button[1]"}.';

export const selector = z
  .union([z.strictObject({ css: z.string().min(1) }), z.strictObject({ xpath: z.string().min(1) })], { error: SELECTOR_FIX })
  .describe('the element: {"css": "..."} or {"xpath": "..."}, exactly one');

export const waitTimeout = z
  .number()
  .min(0)
  .max(60)
  .optional()
  .describe(`seconds to wait for the element to appear (default ${DEFAULT_WAIT_SECONDS}, at most 60)`);

const WEB_URL_FIX = 'must be an absolute http(s) URL such as https://example.com/';

/** Only web pages: file:, data:, javascript: and chrome: URLs would reach past the page. */
export const webUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, WEB_URL_FIX);

export const maxChars = (fallback: number) =>
  z.number().int().min(100).max(1_000_000).optional().describe(`most characters to answer (default ${fallback}); past it a truncation mark shows`);
