/// <reference lib="dom" />
/**
 * The page scripts of typing into a field: finding it, focusing it, setting a date whole, and
 * reading it back. Like every page script (scripts.ts), each travels alone through `inPage`,
 * with the helpers it names beside it.
 */

// Declared, not imported: a page script travels as its source text, and a transform (the tests'
// module runner) rewrites an imported name to a module object no page has. `inPage` gives it.
declare function topPage(): [string, string] | null;

/**
 * The element a locator names and whether it is an empty field, in the one round trip of the
 * lookup; 'refused' for a syntax error or a match that is no element.
 */
export function findField(
  css: string | null,
  xpath: string | null,
  notTyped: string[],
): [Element, boolean, string] | 'refused' | { untyped: string } | null {
  let e: Node | null;
  try {
    e =
      css !== null
        ? document.querySelector(css)
        : document.evaluate(xpath!, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  } catch {
    return 'refused';
  }
  if (e === null) {
    return null;
  }
  if (!(e instanceof Element)) {
    return 'refused';
  }
  const kind = () => (e instanceof HTMLInputElement ? e.type : e instanceof HTMLButtonElement ? 'button' : '');
  if (notTyped.includes(kind())) {
    return { untyped: kind() };
  }
  // Focused here, and looked at again: geckodriver decides whether a field takes files after it
  // focuses it, so a page that makes the field a file input as it takes focus is seen now (the
  // driver's own focus then finds it focused already, and no focus event runs again).
  focusAtEnd(e);
  if (notTyped.includes(kind())) {
    return { untyped: kind() };
  }
  return [e, 'value' in e && e.value === '', kind()];
}

/**
 * Focuses a field with the caret after its text, where Element Send Keys types: keys sent to
 * the focused element (WebDriver actions) then land where they would have.
 */
export function focusAtEnd(e: Element): void {
  if (!(e instanceof HTMLElement)) {
    return;
  }
  e.focus();
  try {
    if (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) {
      e.setSelectionRange(e.value.length, e.value.length);
    } else if (e.isContentEditable) {
      getSelection()?.selectAllChildren(e);
      getSelection()?.collapseToEnd();
    }
  } catch {
    // An email or number input has no caret to place (setSelectionRange throws): it types at the end.
  }
}

/**
 * Sets a date, time, month, week or datetime-local input whole, as its value (needs `topPage`
 * and `watchNavigations`): the browsers type into these by locale, so the same keys give
 * Firefox 2026-12-06 and Chromium 61206-02-02. The prototype's setter, not the element's, so a
 * framework that watches the element's own setter sees a change to report. 'changed' when the
 * field is no longer of such a kind.
 */
export function setWholeValue(
  e: HTMLInputElement,
  text: string,
  kinds: string[],
): [string, [string, string] | null] | 'changed' {
  if (!(e instanceof HTMLInputElement) || !kinds.includes(e.type)) {
    return 'changed';
  }
  e.focus();
  Reflect.set(HTMLInputElement.prototype, 'value', text, e);
  e.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
  return [e.value, topPage()];
}

/** A typed field's value (never a password's) and where the browser is; needs `topPage`. */
export function readBack(e: Element & { type?: string; value?: unknown }): [string | null, [string, string] | null] {
  const value = e.type === 'password' ? null : 'value' in e ? String(e.value) : e.textContent;
  return [value, topPage()];
}
