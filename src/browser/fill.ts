import type { WebDriver, WebElement } from 'selenium-webdriver';
import { selenium, wdError } from './webdriver.js';
import { BadRequest } from '../errors.js';
import { receivingPage } from './receiving-page.js';
import { settleAfter } from './navigation.js';
import { inPage } from './scripts.js';
import { NOT_TYPED } from './selectors.js';
import { setSecret } from './secret-scripts.js';

/**
 * A secret goes into its field in one synchronous page script, never as key events.
 *
 * Why, by experiment on the real Grid (a frame from another origin calling focus() on its own
 * field every millisecond, test/fixtures/site/hostile/focus-thief.html): key events follow
 * focus, so a whole-value sendKeys gave the frame every character (3 runs of 3), and so did
 * typing one key at a time after a script had checked (and restored) the focus before each
 * key — the frame takes focus back between the check and the key; that cost 110-140 ms a
 * character besides. Set through the field itself, the frame received nothing and the value
 * took 26-37 ms: inside one script no other script runs, so the origin checked is the origin
 * that receives it, and no key event exists for focus to redirect.
 *
 * Frameworks see it as typing: the value goes through the prototype's native setter (a React
 * controlled input keeps its own copy through the element's own `value` property, and would
 * ignore a change made there) followed by bubbling input and change events. What is lost:
 * keydown/keyup listeners see nothing (a field that only listens to keys stays unaware), and
 * the events are untrusted (isTrusted false).
 *
 * The field is marked (data-selenium-flow-secret) so a screenshot can mask it.
 */
const SET_SECRET = inPage(setSecret);

/**
 * What setting a secret did (the shape the secrets layer audits): typed, with the type of the
 * field it went into ("password", "text"… or "textarea") and the origin the page moved to, if
 * it did; or refused, nothing typed, with the reason for the audit and the message for the caller.
 */
export type SecretFill =
  { typed: true; field?: string; movedTo?: string } | { typed: false; reason: string; message: string };

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * Sets a secret into one field of the page the leash allowed (`page`), and reads where the
 * browser is right after: a page that moved to another origin as the value went in is
 * reported (`movedTo`) so the call withholds it. The value is never read back.
 */
export async function fillSecret(
  driver: WebDriver,
  element: WebElement,
  value: string,
  page: { top: string; frame: string },
  clear: boolean,
): Promise<SecretFill> {
  let answer: [string, string] | null;
  try {
    // A page that moves as the value goes in (an input listener that navigates) is read where
    // it went, below: geckodriver does not wait for that navigation by itself.
    answer = await settleAfter(driver, () =>
      driver.executeScript<[string, string] | null>(
        SET_SECRET,
        element,
        value,
        clear,
        originOf(page.frame),
        originOf(page.top),
        NOT_TYPED,
      ),
    );
  } catch (err) {
    if (err instanceof Error && err.message.includes(value)) {
      throw new BadRequest('The field refused the typed text; check the selector with outline.');
    }
    if (!(err instanceof wdError().UnexpectedAlertOpenError)) {
      throw err;
    }
    answer = null;
  }
  // No answer: the page opened a dialog from its input or change listener, which ends the
  // script (chromedriver answers null, or that a dialog is open). The value is in (the events come after it), and the
  // dialog is the call's page state, screened like any other.
  if (answer === null) {
    return { typed: true };
  }
  const [result, detail] = answer;
  switch (result) {
    case 'moved':
      return {
        typed: false,
        reason: 'page changed origin before typing',
        message: `The page moved to ${detail} between the check and the typing; nothing was typed. Navigate to an allowed page and write again.`,
      };
    case 'gone':
      return {
        typed: false,
        reason: 'field gone',
        message:
          'The field left the page before the secret could be typed; nothing was typed. Find it again with outline and write again.',
      };
    case 'not a field':
      return {
        typed: false,
        reason: 'not a text field',
        message: `A secret is typed only into a text field (an input that takes text, or a textarea), and this is ${detail}; nothing was typed. Point selector at the field itself.`,
      };
    case 'read-only':
      return {
        typed: false,
        reason: 'field read-only',
        message:
          'That field is disabled or read-only; nothing was typed. Wait until it is editable, or pick the right field.',
      };
  }
  // A page that cannot be read now (a dialog holds it) is read, and screened, as the call's page state.
  const after = await receivingPage(driver).catch(() => ({ top: '', frame: '' }));
  const moved = (now: string, was: string) =>
    now !== '' && originOf(now) !== originOf(was) ? originOf(now) : undefined;
  const movedTo = moved(after.top, page.top) ?? moved(after.frame, page.frame);
  return movedTo === undefined ? { typed: true, field: detail } : { typed: true, field: detail, movedTo };
}

/** Enter on the field a secret was just typed into (one key with no value in it), and the page it leads to loaded. */
export async function submitField(driver: WebDriver, element: WebElement): Promise<void> {
  await settleAfter(driver, () => element.sendKeys(selenium().Key.ENTER));
}
