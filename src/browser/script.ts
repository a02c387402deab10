import type { WebDriver } from 'selenium-webdriver';
import { wdError } from './webdriver.js';
import { BadRequest, TimedOut } from '../errors.js';
import { poll } from '../poll.js';
import { describeSelector, toBy, type Selector } from './selectors.js';

export async function runScript(driver: WebDriver, script: string, args: unknown[]): Promise<unknown> {
  try {
    const value: unknown = await driver.executeScript(script, ...args);
    return toJsonValue(value);
  } catch (err) {
    // chromedriver reports a DOMException the script threw as "invalid element state".
    if (err instanceof wdError().JavascriptError || err instanceof wdError().InvalidElementStateError) {
      throw new BadRequest(
        `The script threw: ${firstLine(err.message)}. Fix the script; it runs as a function body, so use return to answer a value.`,
      );
    }
    throw err;
  }
}

/** WebElements cannot travel back to a caller: they become a short description. */
function toJsonValue(value: unknown): unknown {
  if (value === undefined) {
    return null;
  }
  if (Array.isArray(value)) {
    return value.map(toJsonValue);
  }
  if (value !== null && typeof value === 'object') {
    if (typeof (value as { getId?: unknown }).getId === 'function') {
      return '[element]';
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonValue(v)]));
  }
  return value;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? '')
    .replace(/^(javascript error|invalid element state):\s*/i, '')
    .replace(/\.$/, '')
    .slice(0, 300);
}

export type ElementState = 'present' | 'absent' | 'visible' | 'hidden';

export type Condition = { script: string } | { selector: Selector; state: ElementState };

/**
 * Polls a condition until it holds for `stableForMs` without a break, or `timeoutSeconds`
 * runs out. Stability matters for pages that flash an element on and off while loading.
 */
export async function waitForCondition(
  driver: WebDriver,
  condition: Condition,
  timeoutSeconds: number,
  stableForMs: number,
  message: string,
): Promise<number> {
  const started = Date.now();
  let heldSince: number | undefined;
  const waited = await poll(
    async () => {
      const holds = await conditionHolds(driver, condition);
      const now = Date.now();
      heldSince = holds ? (heldSince ?? now) : undefined;
      return heldSince !== undefined && now - heldSince >= stableForMs ? now - started : undefined;
    },
    timeoutSeconds * 1000,
    100,
  );
  if (waited === undefined) {
    throw new TimedOut(
      `Assertion failed: ${message} (${describeCondition(condition)} did not hold within ${timeoutSeconds} s).`,
    );
  }
  return waited;
}

async function conditionHolds(driver: WebDriver, condition: Condition): Promise<boolean> {
  if ('script' in condition) {
    return Boolean(await runScript(driver, condition.script, []));
  }
  const found = await driver.findElements(toBy(condition.selector));
  switch (condition.state) {
    case 'present':
      return found.length > 0;
    case 'absent':
      return found.length === 0;
    case 'visible':
      return found.length > 0 && (await isDisplayed(found[0]));
    case 'hidden':
      return found.length === 0 || !(await isDisplayed(found[0]));
  }
}

async function isDisplayed(element: { isDisplayed(): Promise<boolean> } | undefined): Promise<boolean> {
  try {
    return element ? await element.isDisplayed() : false;
  } catch (err) {
    if (err instanceof wdError().StaleElementReferenceError) {
      return false;
    }
    throw err;
  }
}

function describeCondition(condition: Condition): string {
  return 'script' in condition ? 'the script' : `${describeSelector(condition.selector)} ${condition.state}`;
}
