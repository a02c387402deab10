import type { WebDriver, WebElement } from 'selenium-webdriver';
import { selenium } from './webdriver.js';
import { BadRequest } from '../errors.js';
import { settleAfter } from './navigation.js';
import { describeSelector, findElement, type Selector } from './selectors.js';
import { findOption, focusHeld, inPage, isCheckable, scrollIntoView } from './scripts.js';

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
