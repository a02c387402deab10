import { error as wdError, type WebDriver } from 'selenium-webdriver';
import { BadRequest } from '../errors.js';
import { poll } from '../poll.js';
import { NOT_A_SELECTOR } from './errors.js';
import { noElement, type Selector } from './selectors.js';
import { extractValues, inPage } from './scripts.js';

/** What to read of each element: an attribute by its name. */
export type ExtractWhat = { what: 'attribute'; attribute: string } | { what: 'text' | 'html' | 'value' };

export interface ExtractRequest {
  selector?: Selector;
  read: ExtractWhat;
  all: boolean;
  maxChars: number;
  waitSeconds: number;
  /** a value this says carries a typed secret is blanked before any cut, which could leave part of it */
  carriesSecret?: (text: string) => boolean;
}

// One round trip finds and reads the element(s) in the page, instead of a find plus a read
// per element over WebDriver. It stops one character past the budget (so the cut is seen): a page
// of a million elements must not send them all to be cut here.
const EXTRACT_SCRIPT = inPage(extractValues);

// The page reads this far past max_chars: a caller that screens the text (for a typed secret,
// by runs of a dozen characters) must see enough of a value the cut would split to recognise it.
const READ_PAST_CUT = 64;

export const TRUNCATION_MARK = '…[truncated: raise max_chars or narrow the selector]';

export async function extract(
  driver: WebDriver,
  request: ExtractRequest,
): Promise<{ values: (string | null)[]; truncated: boolean; withheld: boolean }> {
  const css = request.selector && 'css' in request.selector ? request.selector.css : null;
  const xpath = request.selector && 'xpath' in request.selector ? request.selector.xpath : null;
  const values = await poll(
    async () => {
      const found = await runInPage<(string | null)[]>(
        driver,
        EXTRACT_SCRIPT,
        css,
        xpath,
        request.read.what,
        request.read.what === 'attribute' ? request.read.attribute : null,
        request.all,
        request.maxChars + READ_PAST_CUT,
      );
      return found.length > 0 ? found : undefined;
    },
    request.waitSeconds * 1000,
    100,
  );
  if (values === undefined) {
    if (request.all) {
      return { values: [], truncated: false, withheld: false };
    }
    throw noElement(request.selector ?? { css: 'html' }, request.waitSeconds);
  }
  const screened = values.map((v) => (v !== null && request.carriesSecret?.(v) ? '' : v));
  return { ...truncateAll(screened, request.maxChars), withheld: screened.some((v, i) => v !== values[i]) };
}

/**
 * The reading scripts throw only when the page rejects the caller's selector syntax (a
 * DOMException, which chromedriver reports as "invalid element state").
 */
export async function runInPage<T>(driver: WebDriver, script: string, ...args: unknown[]): Promise<T> {
  try {
    return await driver.executeScript<T>(script, ...args);
  } catch (err) {
    if (err instanceof wdError.JavascriptError || err instanceof wdError.InvalidElementStateError) {
      throw new BadRequest(NOT_A_SELECTOR);
    }
    throw err;
  }
}

/** One budget for the whole answer, so `all` cannot multiply it. */
function truncateAll(values: (string | null)[], maxChars: number): { values: (string | null)[]; truncated: boolean } {
  let budget = maxChars;
  let truncated = false;
  const out: (string | null)[] = [];
  for (const value of values) {
    if (budget <= 0) {
      truncated = true;
      break;
    }
    if (value === null) {
      // A null costs what it costs in the answer's JSON, so a page of nulls is bounded too.
      out.push(null);
      budget -= 4;
      continue;
    }
    if (value.length > budget) {
      out.push(value.slice(0, budget) + TRUNCATION_MARK);
      truncated = true;
      break;
    }
    out.push(value);
    budget -= value.length;
  }
  return { values: out, truncated };
}
