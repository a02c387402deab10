import type { WebDriver, WebElement } from 'selenium-webdriver';
import { selenium, wdError } from './webdriver.js';
import { documentWentAway } from './errors.js';
import { BadRequest } from '../errors.js';
import { settleAfter } from './navigation.js';
import { describeSelector, findElement, findFormField, type Selector } from './selectors.js';
import {
  findOption,
  focusAtEnd,
  focusHeld,
  inPage,
  isCheckable,
  readBack,
  scrollIntoView,
  setWholeValue,
  topPage,
  watchNavigations,
} from './scripts.js';

export const INTERACT_ACTIONS = [
  'click',
  'double_click',
  'right_click',
  'hover',
  'select',
  'check',
  'uncheck',
  'clear',
  'focus',
  'scroll_into_view',
] as const;
export type InteractAction = (typeof INTERACT_ACTIONS)[number];

/** What to do to the element: select carries the option to choose. */
export type Interaction = { action: 'select'; option: string } | { action: Exclude<InteractAction, 'select'> };

export async function interact(
  driver: WebDriver,
  interaction: Interaction,
  selector: Selector,
  waitSeconds: number,
): Promise<void> {
  const element = await findElement(driver, selector, waitSeconds);
  const { action } = interaction;
  switch (action) {
    case 'click':
      return element.click();
    case 'double_click':
      return driver.actions().doubleClick(element).perform();
    case 'right_click':
      return driver.actions().contextClick(element).perform();
    case 'hover':
      return driver.actions().move({ origin: element }).perform();
    case 'select':
      return selectOption(driver, element, selector, interaction.option);
    case 'check':
    case 'uncheck':
      return setChecked(driver, element, selector, action === 'check');
    case 'clear':
      return element.clear();
    case 'focus':
      return focus(driver, element, selector);
    case 'scroll_into_view':
      await driver.executeScript(inPage(scrollIntoView), element);
      return;
  }
}

/**
 * Clicks a checkbox or radio button into the state asked for, and says so when it did not get
 * there (disabled, a page that undoes the click, a radio, which only another of its group
 * unchecks): an answer of done must mean the box is as asked.
 */
async function setChecked(driver: WebDriver, element: WebElement, selector: Selector, wanted: boolean): Promise<void> {
  if (!(await driver.executeScript<boolean>(inPage(isCheckable), element))) {
    throw new BadRequest(
      `${describeSelector(selector)} is not a checkbox or radio button; point selector at the <input type="checkbox">, or click a custom control with interact click.`,
    );
  }
  if ((await element.isSelected()) === wanted) {
    return;
  }
  await element.click();
  if ((await element.isSelected()) !== wanted) {
    throw new BadRequest(
      `${describeSelector(selector)} stayed ${wanted ? 'unchecked' : 'checked'}: it is disabled, the page undid the click, or it is a radio button (check another of its group instead).`,
    );
  }
}

/** focus() on a hidden or unfocusable element does nothing, and keys would land elsewhere. */
async function focus(driver: WebDriver, element: WebElement, selector: Selector): Promise<void> {
  if (!(await driver.executeScript<boolean>(inPage(focusHeld), element))) {
    throw new BadRequest(
      `${describeSelector(selector)} cannot take focus (hidden, disabled or not a field); wait for it with assert state visible, or pick the field itself.`,
    );
  }
}

// The bindings' Select class fires unawaited commands from its constructor: on an element that
// is not a <select> (or a browser that goes away) their rejection is unhandled and ends the
// process. One script finds the option instead; clicking it selects it as a person would.
const FIND_OPTION = inPage(findOption);

async function selectOption(driver: WebDriver, element: WebElement, selector: Selector, option: string): Promise<void> {
  const found = await driver.executeScript<WebElement | string | null>(FIND_OPTION, element, option);
  if (typeof found === 'string') {
    throw new BadRequest(
      `${describeSelector(selector)} is not a <select>; point selector at the select element, or click the option of a custom list.`,
    );
  }
  if (found === null) {
    throw new BadRequest(
      `No option with text or value "${option}" in ${describeSelector(selector)}; read the options with extract (what: "html").`,
    );
  }
  if (await found.isSelected()) {
    return;
  }
  if (!(await found.isEnabled())) {
    throw new BadRequest(
      `The option "${option}" of ${describeSelector(selector)} is disabled, so it cannot be chosen now; read the options with extract (what: "html").`,
    );
  }
  await found.click();
}

/** The HTML value format of each input set whole rather than typed (setWholeValue). */
const WHOLE_VALUE_FORMATS: Record<string, string> = {
  date: 'yyyy-mm-dd, such as 2026-12-06',
  time: 'hh:mm or hh:mm:ss, 24-hour, such as 14:30',
  month: 'yyyy-mm, such as 2026-12',
  week: 'yyyy-Www, such as 2026-W49',
  'datetime-local': 'yyyy-mm-ddThh:mm, such as 2026-12-06T14:30',
};
const SET_WHOLE_VALUE = inPage(setWholeValue, topPage, watchNavigations);

export async function typeText(
  driver: WebDriver,
  selector: Selector,
  text: string,
  options: { clear: boolean; submit: boolean; readBack: boolean; waitSeconds: number },
): Promise<{ value: string | null; page?: { url: string; title: string } }> {
  const { element, empty, kind } = await findFormField(driver, selector, options.waitSeconds);
  let read: [string | null, [string, string] | null] | undefined;
  const format = WHOLE_VALUE_FORMATS[kind];
  if (format !== undefined) {
    const set = await driver
      .executeScript<[string, [string, string] | null] | 'changed'>(
        SET_WHOLE_VALUE,
        element,
        text,
        Object.keys(WHOLE_VALUE_FORMATS),
      )
      .catch((err: unknown) => {
        // The page's own code runs inside the setting (its value setter, a field that is a file
        // input under another name): what it throws is the page's refusal, not a bug of ours.
        if (err instanceof wdError().JavascriptError && !documentWentAway(err)) {
          throw new BadRequest(
            `${describeSelector(selector)} threw as its value was set (the page's own script, or a field that is no ${kind} field): it may hold none of the text; read it with extract, or the page with outline.`,
          );
        }
        throw err;
      });
    if (set === 'changed') {
      throw new BadRequest(
        `${describeSelector(selector)} changed kind as it was filled, so nothing was set; read the field again with outline.`,
      );
    }
    read = set;
  } else {
    if (options.clear && !empty) {
      await element.clear();
    }
    await typeKeys(driver, element, text, options.clear && !empty);
    // Read before submitting: after Enter the field may be gone with the page it was on. A number
    // field is read even in a flow: it drops what is no number, and says nothing.
    read =
      options.readBack || kind === 'number'
        ? await driver.executeScript<[string | null, [string, string] | null]>(READ_BACK, element)
        : undefined;
  }
  if ((format !== undefined || kind === 'number') && read?.[0] === '' && text.trim() !== '') {
    throw new BadRequest(
      format !== undefined
        ? `${describeSelector(selector)} is an input of type ${kind}, which takes its value as ${format}; it kept none of the text, so write it in that form.`
        : `${describeSelector(selector)} is an input of type ${kind}, which kept none of the typed text; write a number, such as 12 or -4.5.`,
    );
  }
  if (options.submit) {
    await settleAfter(driver, () => element.sendKeys(selenium().Key.ENTER));
  }
  if (!read || !options.readBack) {
    return { value: null };
  }
  const [value, page] = read;
  // Typing does not move the browser, Enter may: the page read with the value is where it is
  // now only when nothing was submitted.
  return page && !options.submit ? { value, page: { url: page[0], title: page[1] } } : { value };
}

/**
 * Whether the driver could read `text` as files, were the field a file input when the keys
 * arrive: Element Send Keys takes each line of it as an absolute path on the browser's machine
 * (a relative one is refused), and hands those files to the page. geckodriver also reads a
 * line that starts with `~` from the browser's home (`~/..` then reaches any file, `~x` a
 * sibling of home), so such a line counts as a path too.
 */
export function mightNameFiles(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.length > 0 && lines.every((line) => /^\s*([/\\~]|[A-Za-z]:)/.test(line));
}

const FOCUS_AT_END = inPage(focusAtEnd);

/**
 * Types into a field the lookup focused. Text that could name files goes as key actions to the
 * focused element, which are only ever keys: a page can turn a text field into a file input
 * between the lookup's check and Element Send Keys (a timer on focus does), and the driver then
 * uploads the files the text names. Other text goes by Element Send Keys, the faster of the two
 * on Firefox (~5 ms a key as actions). `cleared`: WebDriver's clear leaves the field unfocused.
 */
async function typeKeys(driver: WebDriver, element: WebElement, text: string, cleared: boolean): Promise<void> {
  if (!mightNameFiles(text)) {
    await element.sendKeys(text);
    return;
  }
  if (cleared) {
    await driver.executeScript(FOCUS_AT_END, element);
  }
  await driver.actions().sendKeys(text).perform();
}

// A password field's value is not echoed: an answer is read by a model and kept in its
// transcript, and a password has no business there twice. One script, not the getAttribute
// atom (~4 KB of JavaScript sent with every call), that also reads where the browser is.
const READ_BACK = inPage(readBack, topPage, watchNavigations);

let keyNames_: Record<string, string> | undefined;

/** W3C key names a caller may use, mapped to WebDriver's code points (at the first key pressed). */
function keyNames(): Record<string, string> {
  if (keyNames_ === undefined) {
    const { Key } = selenium();
    keyNames_ = {
      ...Object.fromEntries(
        Object.entries(Key).flatMap(([name, value]) =>
          typeof value === 'string' ? [[normaliseKeyName(name), value]] : [],
        ),
      ),
      arrowdown: Key.ARROW_DOWN,
      arrowup: Key.ARROW_UP,
      arrowleft: Key.ARROW_LEFT,
      arrowright: Key.ARROW_RIGHT,
      esc: Key.ESCAPE,
      del: Key.DELETE,
      ctrl: Key.CONTROL,
      cmd: Key.COMMAND,
      meta: Key.META,
      pageup: Key.PAGE_UP,
      pagedown: Key.PAGE_DOWN,
    };
  }
  return keyNames_;
}

function normaliseKeyName(name: string): string {
  return name.toLowerCase().replace(/[_\s-]/g, '');
}

export const MODIFIERS = ['Shift', 'Control', 'Alt', 'Meta'] as const;
export type Modifier = (typeof MODIFIERS)[number];

/** A single printable character is itself; anything longer must be a known key name. */
export function keyCode(name: string): string {
  if ([...name].length === 1) {
    return name;
  }
  const code = keyNames()[normaliseKeyName(name)];
  if (code === undefined) {
    throw new BadRequest(
      `Unknown key "${name}"; use a W3C key name such as Enter, Tab, Escape, ArrowDown, Backspace, or a single character.`,
    );
  }
  return code;
}

export async function pressKey(
  driver: WebDriver,
  key: string,
  modifiers: readonly Modifier[],
  selector: Selector | undefined,
  waitSeconds: number,
): Promise<void> {
  const code = keyCode(key);
  if (selector) {
    await focus(driver, await findElement(driver, selector, waitSeconds), selector);
  }
  const modifierCodes = modifiers.map((m) => keyCode(m));
  let actions = driver.actions();
  for (const m of modifierCodes) {
    actions = actions.keyDown(m);
  }
  actions = actions.keyDown(code).keyUp(code);
  for (const m of [...modifierCodes].reverse()) {
    actions = actions.keyUp(m);
  }
  // Any key may send a form or follow a link (Enter, Space on a button).
  await settleAfter(driver, () => actions.perform());
}
