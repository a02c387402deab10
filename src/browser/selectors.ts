import type { By, WebDriver, WebElement } from 'selenium-webdriver';
import { selenium, wdError } from './webdriver.js';
import { BadRequest, NotFound } from '../errors.js';
import { poll } from '../poll.js';
import { explainWebDriverError, NOT_A_SELECTOR } from './errors.js';
import { findField, focusAtEnd } from './field-scripts.js';
import { inPage } from './scripts.js';

export type Selector = { css: string } | { xpath: string };

export function toBy(selector: Selector): By {
  const { By } = selenium();
  return 'css' in selector ? By.css(selector.css) : By.xpath(selector.xpath);
}

/** How a selector is named back to a caller: `css=#submit`, `xpath=//h1`. */
export function describeSelector(selector: Selector): string {
  return 'css' in selector ? `css=${selector.css}` : `xpath=${selector.xpath}`;
}

export const DEFAULT_WAIT_SECONDS = 5;
const POLL_MS = 100;

/**
 * Finds an element, polling until `waitSeconds` runs out. The first attempt is immediate, so
 * an element that is already there costs one WebDriver command.
 */
export async function findElement(
  driver: WebDriver,
  selector: Selector,
  waitSeconds = DEFAULT_WAIT_SECONDS,
): Promise<WebElement> {
  const by = toBy(selector);
  return untilFound(selector, waitSeconds, () =>
    driver.findElement(by).catch((err: unknown) => {
      if (err instanceof wdError().NoSuchElementError) {
        return undefined;
      }
      throw err;
    }),
  );
}

export interface FormField {
  element: WebElement;
  /** an input, textarea or select whose value is '' (anything else, contenteditable, is not) */
  empty: boolean;
  /** an input's type, 'button' for a button, else '' */
  kind: string;
}

// Typing clears the field first, and WebDriver's clear is a slow round trip of its own
// (~130 ms) that most fields, already empty, do not need: finding the field by script answers
// whether it is empty in the same round trip as the lookup. The page's own querySelector and
// XPath evaluator are what the driver uses for these locators too.
const FIND_FIELD = inPage(findField, { focusAtEnd });

/**
 * Input types that take no typed text. A file input is the one that must never be typed into:
 * the driver reads the text as paths on the browser's machine and hands those files to the page.
 */
export const NOT_TYPED = [
  'button',
  'checkbox',
  'color',
  'file',
  'hidden',
  'image',
  'radio',
  'range',
  'reset',
  'submit',
];

/**
 * findElement for a field about to be typed into, which also says whether it is empty; an
 * element that takes no typed text (NOT_TYPED, a button) is refused with the tool that fits it.
 */
export async function findFormField(
  driver: WebDriver,
  selector: Selector,
  waitSeconds = DEFAULT_WAIT_SECONDS,
): Promise<FormField> {
  const [css, xpath] = 'css' in selector ? [selector.css, null] : [null, selector.xpath];
  return untilFound(selector, waitSeconds, async () => {
    const found = await driver.executeScript<[WebElement, boolean, string] | 'refused' | { untyped: string } | null>(
      FIND_FIELD,
      css,
      xpath,
      NOT_TYPED,
    );
    if (found === 'refused') {
      // A syntax error or a non-element match: the driver's own lookup says why, in its words.
      // geckodriver fails a text-node match as a script error, not as an invalid selector.
      const element = await driver.findElement(toBy(selector)).catch((err: unknown) => {
        const explained = explainWebDriverError(err);
        throw explained !== err
          ? explained
          : err instanceof wdError().JavascriptError
            ? new BadRequest(NOT_A_SELECTOR)
            : err;
      });
      return { element, empty: false, kind: '' };
    }
    if (found !== null && 'untyped' in found) {
      throw untypedField(selector, found.untyped);
    }
    return found === null ? undefined : { element: found[0], empty: found[1], kind: found[2] };
  });
}

function untypedField(selector: Selector, kind: string): BadRequest {
  const remedy =
    kind === 'file'
      ? 'use upload_file to give it a file'
      : kind === 'checkbox' || kind === 'radio'
        ? 'use interact with action check or uncheck'
        : 'use interact to click it, or point selector at a text field (find one with outline)';
  return new BadRequest(
    `${describeSelector(selector)} is ${kind === 'button' ? 'a button' : `an input of type ${kind}`}, which takes no typed text; ${remedy}.`,
  );
}

async function untilFound<T>(
  selector: Selector,
  waitSeconds: number,
  attempt: () => Promise<T | undefined>,
): Promise<T> {
  const found = await poll(attempt, waitSeconds * 1000, POLL_MS);
  if (found === undefined) {
    throw noElement(selector, waitSeconds);
  }
  return found;
}

export async function findElements(
  driver: WebDriver,
  selector: Selector,
  waitSeconds = DEFAULT_WAIT_SECONDS,
): Promise<WebElement[]> {
  const by = toBy(selector);
  const found = await poll(
    async () => {
      const elements = await driver.findElements(by);
      return elements.length > 0 ? elements : undefined;
    },
    waitSeconds * 1000,
    POLL_MS,
  );
  return found ?? [];
}

/**
 * The first of several selectors that matches, tried in order each round until `waitSeconds`
 * runs out: a flow keeps working when a redesign renames the element its first choice named.
 */
export async function firstMatching(
  driver: WebDriver,
  alternatives: readonly Selector[],
  waitSeconds = DEFAULT_WAIT_SECONDS,
): Promise<{ index: number; selector: Selector }> {
  const first = await poll(
    async () => {
      for (const [index, selector] of alternatives.entries()) {
        if ((await driver.findElements(toBy(selector))).length > 0) {
          return { index, selector };
        }
      }
      return undefined;
    },
    waitSeconds * 1000,
    POLL_MS,
  );
  if (first === undefined) {
    throw new NotFound(
      `No element matches any of ${alternatives.map(describeSelector).join(', ')} (waited ${waitSeconds} s); find a working selector with outline, or raise wait_timeout.`,
    );
  }
  return first;
}

export function noElement(selector: Selector, waitSeconds: number): NotFound {
  return new NotFound(
    `No element matches ${describeSelector(selector)} (waited ${waitSeconds} s); find a working selector with outline, or raise wait_timeout.`,
  );
}
