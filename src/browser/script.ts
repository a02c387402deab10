import type { WebDriver } from 'selenium-webdriver';
import { documentWentAway } from './errors.js';
import { wdError } from './webdriver.js';
import { BadRequest, TimedOut } from '../errors.js';
import { MAX_SCRIPT_ANSWER_BYTES } from '../limits.js';
import { poll } from '../poll.js';
import { describeSelector, toBy, type Selector } from './selectors.js';

/** A script whose page navigated away while its promise was pending: it has no answer. */
class NavigatedAway extends BadRequest {
  constructor() {
    super(
      'The page navigated away while the script waited on its promise, so the script has no answer; the browser is on the next page now: read it with outline, or return before the page leaves.',
    );
  }
}

/** What a page answers, in place of its answer, when that is over the limit (see withinLimit). */
const OVER_LIMIT = 'selenium-flow:answer-over-limit';
/** What the top page answers, in place of running a script sent into a frame (see ScriptOptions). */
const NOT_IN_FRAME = 'selenium-flow:not-in-frame';

/** runScript's answer for a script whose frame went away under it: it ran there, and has no answer. */
export const FRAME_LEFT: unique symbol = Symbol('the script left with its frame');

export interface ScriptOptions {
  /**
   * the page measures its answer as JSON before it crosses and, past MAX_SCRIPT_ANSWER_BYTES,
   * sends only that it was over: a 50 MB answer read and parsed whole would hold the server's
   * event loop for every caller
   */
  limited?: boolean;
  /**
   * how many frames deep the script is sent (0: the top page). chromedriver runs a command
   * whose frame went away under it once more, on the top page, unasked: a script that removed
   * its own frame (or whose page removed it as it ran) ran twice, the second time where the
   * caller never sent it. Sent into a frame, a script that finds itself on the top page runs
   * nothing, and runScript answers FRAME_LEFT.
   */
  framesDeep?: number;
}

/** Runs a function body in the page (see ScriptOptions). */
export async function runScript(
  driver: WebDriver,
  script: string,
  args: unknown[],
  { limited = false, framesDeep = 0 }: ScriptOptions = {},
): Promise<unknown> {
  const guarded =
    framesDeep > 0 ? `if (window === window.parent) { return { ${JSON.stringify(NOT_IN_FRAME)}: true }; }\n` : '';
  try {
    const value: unknown = limited
      ? await driver.executeScript(guarded + withinLimit(script), MAX_SCRIPT_ANSWER_BYTES, ...args)
      : await driver.executeScript(guarded + script, ...args);
    if (guarded && answered(value, NOT_IN_FRAME)) {
      return FRAME_LEFT;
    }
    if (limited && answered(value, OVER_LIMIT)) {
      throw answerOverLimit();
    }
    return toJsonValue(value);
  } catch (err) {
    if (documentWentAway(err)) {
      throw new NavigatedAway();
    }
    // chromedriver reports a DOMException the script threw as "invalid element state".
    if (err instanceof wdError().JavascriptError || err instanceof wdError().InvalidElementStateError) {
      throw new BadRequest(
        `The script threw: ${firstLine(err.message)}. Fix the script; it runs as a function body, so use return to answer a value.`,
      );
    }
    throw err;
  }
}

function answered(value: unknown, marker: string): boolean {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, marker);
}

/** The refusal of an answer past the limit: refused rather than cut, since a cut JSON value is no value. */
export function answerOverLimit(): BadRequest {
  return new BadRequest(
    `The script's answer is over the ${MAX_SCRIPT_ANSWER_BYTES}-byte limit of execute_script (as JSON); return less (a slice, a count, or only the fields you need).`,
  );
}

/**
 * The body wrapped so the page measures what it answers. A value JSON cannot hold (a cycle) goes as
 * it is, for WebDriver to refuse as before; a promise is measured once it settles (WebDriver awaits
 * a returned promise either way). JSON's length in UTF-16 units is at most its UTF-8 bytes, so a
 * value the page lets through is measured again, in bytes, by the caller.
 */
function withinLimit(script: string): string {
  return `const limit = arguments[0];
const answer = (function () {
${script}
}).apply(this, Array.prototype.slice.call(arguments, 1));
const measured = (value) => {
  let json;
  try { json = JSON.stringify(value); } catch (e) { return value; }
  return json !== undefined && json.length > limit ? { ${JSON.stringify(OVER_LIMIT)}: json.length } : value;
};
return answer !== null && typeof answer === 'object' && typeof answer.then === 'function' ? answer.then(measured) : measured(answer);`;
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
    if ('getId' in value && typeof value.getId === 'function') {
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
    try {
      return Boolean(await runScript(driver, condition.script, []));
    } catch (err) {
      // A navigation under the check: the condition is asked again on the page it led to.
      if (err instanceof NavigatedAway) {
        return false;
      }
      throw err;
    }
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
