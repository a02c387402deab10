import { wdError } from './webdriver.js';
import { BadRequest, GridUnavailable, NotFound, PageUnreachable, TimedOut } from '../errors.js';

export const NOT_A_SELECTOR = 'The selector is not valid CSS or XPath; fix its syntax, or find one with outline.';
export const XPATH_NOT_AN_ELEMENT =
  'The XPath selects text, an attribute or the document, not an element; select the element itself (//h1, not //h1/text()), or find one with outline.';

/** The refusal of a tool an open dialog blocks, whether WebDriver or the call path finds the dialog first. */
export function dialogOpen(message: string | undefined): BadRequest {
  return new BadRequest(
    `A page dialog is open${message ? ` ("${message.slice(0, 200)}")` : ''}; answer it with the dialog tool (accept or dismiss) first.`,
  );
}

/**
 * WebDriver's page-level failures, said as what the caller should do next. Anything not
 * listed passes through unchanged (and, if nobody else knows it, becomes a 500: a bug).
 */
export function explainWebDriverError(err: unknown): unknown {
  if (err instanceof wdError().UnexpectedAlertOpenError) {
    return dialogOpen(err.getAlertText());
  }
  if (err instanceof wdError().ElementClickInterceptedError) {
    return new BadRequest(
      'Another element covers that one, so the click would land elsewhere; close the overlay first, or scroll_into_view.',
    );
  }
  if (err instanceof wdError().ElementNotInteractableError) {
    return new BadRequest(
      'That element cannot be used now (hidden, disabled or off-screen); wait for it with assert state visible, or pick another selector.',
    );
  }
  if (err instanceof wdError().InvalidElementStateError) {
    return new BadRequest(
      'That element cannot do that in its state (e.g. clear on an element that is not an editable field); pick another element or action.',
    );
  }
  if (err instanceof wdError().StaleElementReferenceError || NODE_GONE.test(errorMessage(err))) {
    return new BadRequest('The element changed while it was being used (the page re-rendered); call again.');
  }
  if (NOT_AN_ELEMENT.test(errorMessage(err))) {
    return new BadRequest(XPATH_NOT_AN_ELEMENT);
  }
  if (err instanceof wdError().InvalidSelectorError) {
    return new BadRequest(NOT_A_SELECTOR);
  }
  if (err instanceof wdError().NoSuchFrameError) {
    return new NotFound('No such frame; list the iframes with outline and enter one by its selector.');
  }
  if (err instanceof wdError().NoSuchWindowError) {
    return new NotFound(
      'The tab the browser was on is closed; list them with navigate {action: "tabs"} and select one with navigate {tab}.',
    );
  }
  if (err instanceof wdError().ScriptTimeoutError || err instanceof wdError().TimeoutError) {
    return new TimedOut('The page did not finish in time; call again, or check the page with outline.');
  }
  if (err instanceof wdError().MoveTargetOutOfBoundsError) {
    return new BadRequest('That element is outside the window; scroll_into_view first, or resize the window.');
  }
  if (err instanceof wdError().InvalidArgumentError) {
    return new BadRequest(`WebDriver refused an argument: ${err.message.split('\n')[0]?.slice(0, 200) ?? ''}.`);
  }
  if (err instanceof wdError().WebDriverError && err.name === 'WebDriverError' && PAGE_BROKE_DRIVER.test(err.message)) {
    return new PageUnreachable(
      "This page breaks the scripts the browser's driver runs in it (it replaced a built-in such as JSON.stringify), so it cannot be read or acted on; navigate to another page.",
    );
  }
  if (err instanceof wdError().WebDriverError && err.name === 'WebDriverError' && BROWSER_DIED.test(err.message)) {
    return new GridUnavailable(
      'The browser stopped answering (its tab crashed or it lost its driver); call open_session for a new one.',
    );
  }
  return err;
}

/**
 * Whether a script failed because its document went away under it (a navigation, while the
 * script waited on its promise): chromedriver answers "timeout … aborted by navigation" at
 * once, geckodriver "Document was unloaded". The browser is on the next page by then.
 */
export function documentWentAway(err: unknown): boolean {
  const { JavascriptError, ScriptTimeoutError, TimeoutError } = wdError();
  if (err instanceof TimeoutError || err instanceof ScriptTimeoutError) {
    return /aborted by navigation/.test(err.message);
  }
  return err instanceof JavascriptError && /^Document was unloaded/.test(err.message);
}

/**
 * The drivers' answers to an XPath that selects a text node, an attribute or the document: no
 * element to return. chromedriver: "…It should be an element"; geckodriver, by version, that its
 * reply "cannot be cloned" or holds a "Cyclic object value".
 */
const NOT_AN_ELEMENT = /It should be an element|message reply cannot be cloned|Cyclic object value/;

function errorMessage(err: unknown): string {
  return err instanceof wdError().WebDriverError ? err.message : '';
}

/**
 * chromedriver's answer when the page replaced the element's node while a command used it
 * (a page that re-renders): the element changed, as a stale reference says it.
 */
const NODE_GONE = /^unknown error: unhandled inspector error: .*Node with given id does not belong to the document/;

/**
 * chromedriver's answer when its own script fails in the page: it calls it through the page's
 * built-ins, which a page may replace (JSON.stringify throwing breaks every command).
 */
const PAGE_BROKE_DRIVER = /^unknown error: Runtime\.(callFunctionOn|evaluate) threw exception/;

/**
 * The drivers' words for a tab or browser that died under them: chromedriver's "unknown error",
 * geckodriver's for a Firefox process that went away mid-command. The browser's failure, not ours.
 */
const BROWSER_DIED =
  /tab crashed|page crash|chrome not reachable|disconnected: not connected to DevTools|target closed|Failed to decode response from marionette/i;
