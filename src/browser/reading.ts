import { error as wdError, type WebDriver } from 'selenium-webdriver';
import { BadRequest } from '../errors.js';
import { delay, noElement, type Selector } from './selectors.js';
import { NOT_A_SELECTOR } from './errors.js';

export type ExtractWhat = 'text' | 'html' | 'value' | 'attribute';

export interface ExtractRequest {
  selector?: Selector;
  what: ExtractWhat;
  attribute?: string;
  all: boolean;
  maxChars: number;
  waitSeconds: number;
  /** a value this says carries a typed secret is blanked before any cut, which could leave part of it */
  carriesSecret?: (text: string) => boolean;
}

// One round trip finds and reads the element(s) in the page, instead of a find plus a read
// per element over WebDriver. It stops one character past the budget (so the cut is seen): a page
// of a million elements must not send them all to be cut here.
const EXTRACT_SCRIPT = `
const [css, xpath, what, attribute, all, budget] = arguments;
let nodes;
if (css !== null) nodes = Array.from(document.querySelectorAll(css));
else if (xpath !== null) {
  const r = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  nodes = []; for (let i = 0; i < r.snapshotLength; i++) nodes.push(r.snapshotItem(i));
} else nodes = [document.documentElement];
if (!all) nodes = nodes.slice(0, 1);
const read = (n) => {
  if (what === 'html') return n.outerHTML ?? n.textContent ?? '';
  if (what === 'value') return n.value === undefined ? null : String(n.value);
  if (what === 'attribute') return n.getAttribute ? n.getAttribute(attribute) : null;
  return n === document.documentElement ? document.body.innerText : (n.innerText ?? n.textContent ?? '');
};
const out = [];
let used = 0;
for (const n of nodes) {
  if (used > budget) break;
  let v = read(n);
  if (v !== null && v.length > budget - used + 1) v = v.slice(0, budget - used + 1);
  out.push(v);
  used += v === null ? 4 : v.length;
}
return out;`;

// The page reads this far past max_chars: a caller that screens the text (for a typed secret,
// by runs of a dozen characters) must see enough of a value the cut would split to recognise it.
const READ_PAST_CUT = 64;

export const TRUNCATION_MARK = '…[truncated: raise max_chars or narrow the selector]';

export async function extract(
  driver: WebDriver,
  request: ExtractRequest,
): Promise<{ values: (string | null)[]; truncated: boolean; withheld: boolean }> {
  if (request.what === 'attribute' && !request.attribute) {
    throw new BadRequest('what "attribute" needs attribute: the attribute name to read, e.g. "href".');
  }
  const css = request.selector && 'css' in request.selector ? request.selector.css : null;
  const xpath = request.selector && 'xpath' in request.selector ? request.selector.xpath : null;
  const deadline = Date.now() + request.waitSeconds * 1000;
  for (;;) {
    const values = await runInPage<(string | null)[]>(
      driver,
      EXTRACT_SCRIPT,
      css,
      xpath,
      request.what,
      request.attribute ?? null,
      request.all,
      request.maxChars + READ_PAST_CUT,
    );
    if (values.length > 0) {
      const screened = values.map((v) => (v !== null && request.carriesSecret?.(v) ? '' : v));
      return { ...truncateAll(screened, request.maxChars), withheld: screened.some((v, i) => v !== values[i]) };
    }
    if (Date.now() >= deadline) {
      if (request.all) {
        return { values: [], truncated: false, withheld: false };
      }
      throw noElement(request.selector ?? { css: 'html' }, request.waitSeconds);
    }
    await delay(100);
  }
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
