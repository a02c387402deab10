import type { WebDriver, WebElement } from 'selenium-webdriver';
import { selenium, wdError } from './webdriver.js';
import { documentWentAway } from './errors.js';
import { BadRequest } from '../errors.js';
import { settleAfter } from './navigation.js';
import { describeSelector, findFormField, type Selector } from './selectors.js';
import { focusAtEnd, readBack, setWholeValue } from './field-scripts.js';
import { inPage, topPage, watchNavigations } from './scripts.js';

/** The HTML value format of each input set whole rather than typed (setWholeValue). */
const WHOLE_VALUE_FORMATS: Record<string, string> = {
  date: 'yyyy-mm-dd, such as 2026-12-06',
  time: 'hh:mm or hh:mm:ss, 24-hour, such as 14:30',
  month: 'yyyy-mm, such as 2026-12',
  week: 'yyyy-Www, such as 2026-W49',
  'datetime-local': 'yyyy-mm-ddThh:mm, such as 2026-12-06T14:30',
};
const SET_WHOLE_VALUE = inPage(setWholeValue, { topPage, watchNavigations });

export async function typeText(
  driver: WebDriver,
  selector: Selector,
  text: string,
  options: { clear: boolean; submit: boolean; readBack: boolean; waitSeconds: number },
): Promise<{ value: string | null; page?: { url: string; title: string } }> {
  const { element, empty, kind } = await findFormField(driver, selector, options.waitSeconds);
  const format = WHOLE_VALUE_FORMATS[kind];
  let read: [string | null, [string, string] | null] | undefined;
  if (format !== undefined) {
    read = await setWholeField(driver, element, selector, text, kind);
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
 * Sets a date, time, month, week or datetime-local input to `text` whole, and answers what it
 * holds then and where the browser is (as READ_BACK does).
 */
async function setWholeField(
  driver: WebDriver,
  element: WebElement,
  selector: Selector,
  text: string,
  kind: string,
): Promise<[string, [string, string] | null]> {
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
  return set;
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
const READ_BACK = inPage(readBack, { topPage, watchNavigations });
