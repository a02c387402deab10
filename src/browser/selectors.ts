import { By, error as wdError, type WebDriver, type WebElement } from 'selenium-webdriver';
import { NotFound } from '../errors.js';

export type Selector = { css: string } | { xpath: string };

export function toBy(selector: Selector): By {
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
export async function findElement(driver: WebDriver, selector: Selector, waitSeconds = DEFAULT_WAIT_SECONDS): Promise<WebElement> {
  const by = toBy(selector);
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    try {
      return await driver.findElement(by);
    } catch (err) {
      if (!(err instanceof wdError.NoSuchElementError) || Date.now() >= deadline) {
        throw err instanceof wdError.NoSuchElementError ? noElement(selector, waitSeconds) : err;
      }
    }
    await delay(POLL_MS);
  }
}

export async function findElements(driver: WebDriver, selector: Selector, waitSeconds = DEFAULT_WAIT_SECONDS): Promise<WebElement[]> {
  const by = toBy(selector);
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const found = await driver.findElements(by);
    if (found.length > 0 || Date.now() >= deadline) {
      return found;
    }
    await delay(POLL_MS);
  }
}

export function noElement(selector: Selector, waitSeconds: number): NotFound {
  return new NotFound(
    `No element matches ${describeSelector(selector)} (waited ${waitSeconds} s); find a working selector with outline, or raise wait_timeout.`,
  );
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
