import { error as wdError, type WebDriver } from 'selenium-webdriver';
import { BadRequest } from '../errors.js';
import { delay, noElement, type Selector } from './selectors.js';

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
async function runInPage<T>(driver: WebDriver, script: string, ...args: unknown[]): Promise<T> {
  try {
    return await driver.executeScript<T>(script, ...args);
  } catch (err) {
    if (err instanceof wdError.JavascriptError || err instanceof wdError.InvalidElementStateError) {
      throw new BadRequest('The selector is not valid CSS or XPath; fix its syntax, or find one with outline.');
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

/**
 * A compact page map built in the page: headings, landmarks, forms with their fields and a
 * selector that works for each, buttons and links. It is text, not a DOM dump, because a
 * model pays for every byte it reads.
 */
const OUTLINE_SCRIPT = `
const [css, xpath] = arguments;
const root = css !== null ? document.querySelector(css)
  : xpath !== null ? document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue
  : document.body;
if (!root) return null;
const clean = (s, n = 60) => (s || '').replace(/\\s+/g, ' ').trim().slice(0, n);
const cssEscape = (s) => (window.CSS && CSS.escape) ? CSS.escape(s) : s.replace(/[^a-zA-Z0-9_-]/g, '\\\\$&');
const unique = (sel) => { try { return document.querySelectorAll(sel).length === 1; } catch { return false; } };
const selectorFor = (el) => {
  if (el.id && unique('#' + cssEscape(el.id))) return '#' + cssEscape(el.id);
  const tag = el.tagName.toLowerCase();
  for (const attr of ['name', 'data-testid', 'aria-label', 'placeholder', 'href', 'type']) {
    const v = el.getAttribute(attr);
    if (v && v.length < 80) { const s = tag + '[' + attr + '="' + v.replace(/"/g, '\\\\"') + '"]'; if (unique(s)) return s; }
  }
  const parts = []; let n = el;
  while (n && n.nodeType === 1 && n !== document.documentElement) {
    if (n.id && unique('#' + cssEscape(n.id))) { parts.unshift('#' + cssEscape(n.id)); break; }
    let i = 1, s = n; while ((s = s.previousElementSibling)) if (s.tagName === n.tagName) i++;
    parts.unshift(n.tagName.toLowerCase() + ':nth-of-type(' + i + ')'); n = n.parentElement;
  }
  return parts.join(' > ');
};
const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
const labelFor = (el) => {
  if (el.labels && el.labels[0]) return clean(el.labels[0].innerText);
  return clean(el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.name || '');
};
const lines = [];
for (const h of root.querySelectorAll('h1,h2,h3')) if (visible(h)) lines.push('#'.repeat(+h.tagName[1]) + ' ' + clean(h.innerText, 80));
const marks = [...root.querySelectorAll('header,nav,main,aside,footer,[role=navigation],[role=main],[role=search]')].filter(visible);
if (marks.length) lines.push('landmarks: ' + marks.map((m) => (m.getAttribute('role') || m.tagName.toLowerCase()) + (m.id ? '#' + m.id : '')).join(', '));
const inForm = new Set();
for (const form of root.querySelectorAll('form')) {
  lines.push('form ' + selectorFor(form) + (form.getAttribute('action') ? ' -> ' + form.getAttribute('action') : ''));
  for (const f of form.querySelectorAll('input,select,textarea,button')) {
    inForm.add(f);
    if (f.type === 'hidden') continue;
    const kind = f.tagName === 'INPUT' ? f.type : f.tagName.toLowerCase();
    const name = kind === 'button' || kind === 'submit' ? clean(f.innerText || f.value) : labelFor(f);
    lines.push('  ' + kind + ' "' + name + '" ' + selectorFor(f));
  }
}
const loose = [...root.querySelectorAll('input,select,textarea')].filter((f) => !inForm.has(f) && f.type !== 'hidden' && visible(f));
if (loose.length) { lines.push('fields:'); for (const f of loose) lines.push('  ' + (f.tagName === 'INPUT' ? f.type : f.tagName.toLowerCase()) + ' "' + labelFor(f) + '" ' + selectorFor(f)); }
const buttons = [...root.querySelectorAll('button,[role=button],input[type=submit],input[type=button]')].filter((b) => !inForm.has(b) && visible(b));
if (buttons.length) { lines.push('buttons:'); for (const b of buttons) lines.push('  "' + clean(b.innerText || b.value) + '" ' + selectorFor(b)); }
const links = [...root.querySelectorAll('a[href]')].filter(visible);
if (links.length) { lines.push('links:'); for (const a of links) lines.push('  "' + clean(a.innerText, 40) + '" ' + selectorFor(a)); }
for (const f of root.querySelectorAll('iframe')) lines.push('iframe ' + selectorFor(f) + (f.getAttribute('src') ? ' src=' + f.getAttribute('src') : ''));
return lines.join('\\n');`;

export async function outline(
  driver: WebDriver,
  scope: Selector | undefined,
  maxChars: number,
  carriesSecret: (text: string) => boolean = () => false,
): Promise<{ outline: string; truncated: boolean; withheld: boolean }> {
  const css = scope && 'css' in scope ? scope.css : null;
  const xpath = scope && 'xpath' in scope ? scope.xpath : null;
  const text = await runInPage<string | null>(driver, OUTLINE_SCRIPT, css, xpath);
  if (text === null) {
    throw noElement(scope ?? { css: 'body' }, 0);
  }
  // Screened line by line before any cut: a cut could leave part of a value, and the rest of the map is still worth having.
  const lines = text.split('\n');
  const shown = lines.filter((line) => !carriesSecret(line)).join('\n');
  const withheld = shown.length !== text.length;
  if (shown.length > maxChars) {
    return { outline: shown.slice(0, maxChars) + TRUNCATION_MARK, truncated: true, withheld };
  }
  return { outline: shown, truncated: false, withheld };
}
