/// <reference lib="dom" />
/**
 * The code that runs inside pages, as typed functions rather than strings with doubled escapes.
 * Each one travels alone (its source text, through `inPage`): it may use its arguments, the
 * page's globals and the helpers `inPage` is given beside it, nothing else of this module.
 * WebDriver hands an element argument in as the page's Element and an Element back as a
 * WebElement. outline.ts keeps its long script as String.raw text.
 */

type PageFunction = (...args: never[]) => unknown;

/**
 * The script WebDriver sends for `fn`, with `helpers` beside it under the names its source calls
 * them by. A bundler may rename a helper's declaration (esbuild does, `topPage2`, when another
 * module names `topPage` as a global): the script then also binds the name the caller wrote.
 * tsx (dev runs, the tests' child servers) wraps named inner functions in `__name(...)`, which no
 * page defines: the script defines it as a no-op.
 */
export function inPage(fn: PageFunction, helpers: Record<string, PageFunction> = {}): string {
  const declared = Object.entries(helpers).flatMap(([name, helper]) =>
    helper.name === name ? [String(helper)] : [String(helper), `const ${name} = ${helper.name};`],
  );
  return ['const __name = (f) => f;', ...declared, `return (${String(fn)}).apply(null, arguments);`].join('\n');
}

// Every act answers where the browser is, so this runs after each one: one script instead of
// getCurrentUrl + getTitle, which the driver runs one after the other (~40 ms a call on the
// Grid). From inside a cross-origin frame `top.document` is out of reach, and the two WebDriver
// commands answer instead. What a page script answers is the page's word (on Chromium a page
// that hooks its own functions chooses it): for the agent, never for the leash
// (receiving-page.ts). Each read also watches this document afresh (watchNavigations), so the
// read after the next act can tell whether that act started a navigation away.
export function topPage(): [string, string] | null {
  watchNavigations();
  try {
    return [top!.location.href, top!.document.title];
  } catch {
    return null;
  }
}

/**
 * The read after an act (needs `topPage` and `watchNavigations`), a promise the driver awaits:
 * it lets two timer turns pass, so the form submission a click queued has run, then answers
 * 'leaving' when a navigation away from this document started since the last read (the
 * driver, asked again, waits for it), 'broken' when the page broke the watch, else the page. A page whose setTimeout is its own (fake
 * timers) may never run it: there it answers at once, as before the wait.
 */
export function topPageAfterTasks(): Promise<[string, string] | null | 'leaving' | 'broken'> {
  return new Promise((done) => {
    // Not watched (no read since this document came): nothing to go by, as before the watcher.
    const read = () => {
      const left = watchNavigations();
      done(left === true ? 'leaving' : left === 'broken' ? 'broken' : topPage());
    };
    if (String(setTimeout).includes('[native code]')) {
      setTimeout(() => setTimeout(read));
    } else {
      read();
    }
  });
}

/** The net::ERR_… code Chromium's own error page prints (only run on a chrome-error:// page). */
export function errorPageReason(): string | null {
  return /\bERR_[A-Z0-9_]+\b/.exec(document.body ? document.body.innerText : '')?.[0] ?? null;
}

/** How many frames below the top page this document is. */
export function frameDepth(): number {
  let depth = 0;
  for (let w: Window = window; w !== w.parent; w = w.parent) {
    depth += 1;
  }
  return depth;
}

export function frameAddress(): string {
  return window.location.href;
}

export function pageSize(): [number, number, number, number] {
  const d = document.documentElement;
  return [d.scrollWidth, d.scrollHeight, window.innerWidth, window.innerHeight];
}

export function scrollOffset(): number {
  return window.scrollY;
}

export function scrollIntoView(element: Element): void {
  element.scrollIntoView({ block: 'center' });
}

/** focus() on a hidden or unfocusable element does nothing: whether the focus is there now. */
export function focusHeld(element: HTMLElement): boolean {
  element.focus();
  const root = element.getRootNode();
  return 'activeElement' in root && root.activeElement === element;
}

/** What check and uncheck act on: a checkbox or a radio button (a custom control is clicked). */
export function isCheckable(element: HTMLInputElement): boolean {
  return element.tagName === 'INPUT' && (element.type === 'checkbox' || element.type === 'radio');
}

export function isFileInput(element: HTMLInputElement): boolean {
  return element.tagName === 'INPUT' && element.type === 'file';
}

/**
 * Gives a file input one file, made here from its bytes (needs `isFileInput`): false when the
 * element is no file input by then. Bubbling `input` and `change` follow, as after a person's pick.
 */
export function givesFile(element: HTMLInputElement, name: string, base64: string, type: string): boolean {
  if (!isFileInput(element)) {
    return false;
  }
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) {
    bytes[i] = binary.charCodeAt(i);
  }
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, { type }));
  element.files = transfer.files;
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}

/** Whether a file input holds a file now (needs `isFileInput`). */
export function holdsFile(element: HTMLInputElement): boolean {
  return isFileInput(element) && (element.files?.length ?? 0) > 0;
}

/** The option of a <select> by its visible text, else its value; a string when it is no select. */
export function findOption(select: HTMLSelectElement, wanted: string): HTMLOptionElement | string | null {
  if (select.tagName !== 'SELECT') {
    return 'not a select';
  }
  const options = Array.from(select.options);
  const text = wanted.replace(/\s+/g, ' ').trim();
  return options.find((o) => o.text === text) || options.find((o) => o.value === wanted) || null;
}

/**
 * The text of what a locator (or, with neither, the page) matches, read in the page. It stops
 * one character past the budget (so the cut is seen): a page of a million elements must not
 * send them all to be cut outside.
 */
export function extractValues(
  css: string | null,
  xpath: string | null,
  what: 'text' | 'html' | 'value' | 'attribute',
  attribute: string | null,
  all: boolean,
  budget: number,
): (string | null)[] {
  let nodes: Node[];
  if (css !== null) {
    nodes = Array.from(document.querySelectorAll(css));
  } else if (xpath !== null) {
    const r = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    nodes = [];
    for (let i = 0; i < r.snapshotLength; i++) {
      nodes.push(r.snapshotItem(i)!);
    }
  } else {
    nodes = [document.documentElement];
  }
  if (!all) {
    nodes = nodes.slice(0, 1);
  }
  const read = (n: Node): string | null => {
    if (what === 'html') {
      return n instanceof Element ? n.outerHTML : (n.textContent ?? '');
    }
    if (what === 'value') {
      // A built-in element's value is text, or a number (li, meter, progress); most nodes have none.
      const field: { value?: string | number } & Node = n;
      return field.value === undefined ? null : String(field.value);
    }
    if (what === 'attribute') {
      return n instanceof Element ? n.getAttribute(attribute!) : null;
    }
    if (n === document.documentElement) {
      return document.body.innerText;
    }
    return n instanceof HTMLElement ? n.innerText : (n.textContent ?? '');
  };
  const out: (string | null)[] = [];
  let used = 0;
  for (const n of nodes) {
    if (used > budget) {
      break;
    }
    let v = read(n);
    if (v !== null && v.length > budget - used + 1) {
      v = v.slice(0, budget - used + 1);
    }
    out.push(v);
    used += v === null ? 4 : v.length;
  }
  return out;
}

interface NavigationWatch {
  started: NavigateEvent[];
  finished: number;
}

/** What watchNavigations hangs on a window, under its symbol; a type alone, so it travels in no script. */
type NavigationsWatched = Record<symbol, NavigationWatch | undefined>;

/**
 * Watches this document for a navigation a key or a click may start: every `navigate` event
 * (the Navigation API, in Chromium and Firefox) and whether it finished within the document.
 * Installed once per document; answers whether a navigation away started under the watch so
 * far (neither cancelled, nor a download, nor ended within the document), and with `fresh`
 * starts a new watch. 'unwatched': this document was not watched yet (the list hangs on a
 * symbol of the window, so a new document has none). 'broken': the page broke the list, which
 * it can reach too; a caller then reads the page again, the truth either way.
 */
export function watchNavigations(fresh = true): boolean | 'unwatched' | 'broken' {
  try {
    const key = Symbol.for('selenium-flow.navigations');
    const w = window as typeof window & NavigationsWatched;
    const existing = w[key];
    if (existing) {
      const leaving = existing.started.filter((e) => !e.defaultPrevented && e.downloadRequest === null).length;
      const left = leaving > existing.finished;
      if (fresh) {
        existing.started = [];
        existing.finished = 0;
      }
      return left;
    }
    const seen: NavigationWatch = { started: [], finished: 0 };
    w[key] = seen;
    const navigation = 'navigation' in window ? window.navigation : undefined;
    navigation?.addEventListener('navigate', (e) => seen.started.push(e));
    // A navigation the page took over (intercept) or a fragment: it ends within this document.
    navigation?.addEventListener('navigatesuccess', () => (seen.finished += 1));
    navigation?.addEventListener('navigateerror', () => (seen.finished += 1));
    return 'unwatched';
  } catch {
    // Marked on the document, not the window the page broke: navigationSettled then tells this
    // document, left behind, from the next one (a page that breaks this too waits out the grace).
    try {
      if (fresh) {
        Reflect.set(document, Symbol.for('selenium-flow.left-behind'), true);
      }
    } catch {
      // read as it is once the grace is over
    }
    return 'broken';
  }
}

/**
 * Whether a navigation watched by watchNavigations (needed beside it) is over: none left the
 * document, or another document is here now and has loaded. Firefox shows a passing
 * about:blank while one document replaces another. On a page that broke the watch, only another
 * document has settled until `graceOver`: the act may have started no navigation at all.
 */
export function navigationSettled(graceOver = false): boolean {
  let leftBehind = false;
  try {
    leftBehind = Reflect.get(document, Symbol.for('selenium-flow.left-behind')) === true;
  } catch {
    // read as a new document
  }
  const left = watchNavigations(false);
  if (left === 'broken' && leftBehind && !graceOver) {
    return false;
  }
  return left === false || (left !== true && document.readyState === 'complete' && location.href !== 'about:blank');
}
