import type { WebDriver } from 'selenium-webdriver';
import { PageUnreachable } from '../errors.js';
import { ADDRESS_CLOSED, PORT_CLOSED, readProxyPageTitle } from '../grid/proxy-page.js';
import { errorPageReason, inPage, watchNavigations } from './scripts.js';
import { readPageState, waitUntilSettled, type PageState } from './page-state.js';

export type HistoryAction = 'back' | 'forward' | 'refresh';

/** Goes to url; answers where the browser is then, which the caller answers with (no second read). */
export async function navigateTo(driver: WebDriver, url: string): Promise<PageState> {
  try {
    await driver.get(url);
  } catch (err) {
    throw unreachable(err, originOf(url)) ?? err;
  }
  const page = await failedToLoad(driver, originOf(url));
  // A dialog the page opened as it loaded hides where it is from WebDriver: it is where it was sent.
  return page.dialog ? { ...page, url } : page;
}

/**
 * A page that failed after the navigation committed (a redirect loop) does not fail the
 * command in chromedriver: the browser is on its own error page, whose address is its
 * chrome-error:// origin, and the reason is printed on that page (no site can write there).
 */
async function failedToLoad(driver: WebDriver, where: string): Promise<PageState> {
  const page = await refusedByProxy(driver, where);
  if (!page.url.startsWith(CHROME_ERROR_PAGE)) {
    return page;
  }
  const reason = await driver.executeScript<unknown>(inPage(errorPageReason));
  throw unreachableFor(typeof reason === 'string' ? `net::${reason}` : undefined, MEANING[String(reason)], where);
}

const CHROME_ERROR_PAGE = 'chrome-error://';

/**
 * The browsers go through the fence's proxy, and a browser shows an HTTP proxy's refusal
 * as the page: its title names the reason (grid/proxy-page.ts), answered here as the same 502 a
 * direct failure gets. The page state every acting tool answers with carries the title, so one
 * read serves both: the check costs no round trip of its own.
 */
async function refusedByProxy(driver: WebDriver, where: string): Promise<PageState> {
  const page = await readPageState(driver);
  const refused = readProxyPageTitle(page.title);
  if (!refused) {
    return page;
  }
  if (refused.reason === PORT_CLOSED) {
    throw new PageUnreachable(
      `${where} could not be loaded: that port of the browsers' own host is closed to them, not unanswered. ` +
        `Only the ports in BROWSER_LOOPBACK_PORTS (now: ${refused.openPorts}) are open to the browsers: add this one there and restart, if it serves the site under test.`,
    );
  }
  if (refused.reason === ADDRESS_CLOSED) {
    throw new PageUnreachable(
      `${where} could not be loaded: the fence closes that address to the browsers (a private network's, the Grid's own, or the cloud metadata service), not unanswered. ` +
        "If it serves the site under test on a private network, add its host to FENCE_ALLOW and restart; the Grid's own addresses stay closed.",
    );
  }
  throw unreachableFor(`net::${refused.reason}`, MEANING[refused.reason], where);
}

export async function moveThroughHistory(driver: WebDriver, action: HistoryAction): Promise<PageState> {
  const nav = driver.navigate();
  try {
    if (action === 'back') {
      await nav.back();
    } else if (action === 'forward') {
      await nav.forward();
    } else {
      await nav.refresh();
    }
  } catch (err) {
    throw unreachable(err, 'The page') ?? err;
  }
  return failedToLoad(driver, 'The page');
}

const WATCH_NAVIGATIONS = inPage(watchNavigations);

/**
 * Runs an act that may send a form or move the page (a key, Enter in a field, a value whose
 * input listener navigates), then waits until the navigation it started, if any, has loaded:
 * the page state read next is where the browser went. geckodriver waits only after a click,
 * and chromedriver's wait for a pending navigation ends before a slow server answers (seen
 * under load in CI), so the page read right after Enter could be the page left behind: the
 * answer named a page the browser was leaving, not the one the form led to (whose address may
 * carry what was typed, and is screened as such once it is the one read).
 */
export async function settleAfter<T>(driver: WebDriver, act: () => Promise<T>): Promise<T> {
  await driver.executeScript(WATCH_NAVIGATIONS);
  const done = await act();
  await waitUntilSettled(driver, Date.now());
  return done;
}

/** What Chromium's most common network failures mean, for the caller deciding what to do next. */
const MEANING: Record<string, string> = {
  ERR_NAME_NOT_RESOLVED: 'no such host name',
  ERR_NAME_RESOLUTION_FAILED: 'the host name could not be looked up',
  ERR_CONNECTION_REFUSED: 'nothing is listening there',
  ERR_CONNECTION_TIMED_OUT: 'the host did not answer',
  ERR_CONNECTION_RESET: 'the connection was reset',
  ERR_CONNECTION_CLOSED: 'the connection was closed',
  ERR_ADDRESS_UNREACHABLE: 'the address cannot be reached from the browser',
  ERR_INTERNET_DISCONNECTED: 'the browser has no network',
  ERR_UNSAFE_PORT: 'browsers refuse that port',
  ERR_BLOCKED_BY_ADMINISTRATOR: 'the browser is not allowed to open it',
  ERR_CERT_AUTHORITY_INVALID: 'its TLS certificate is not trusted',
  ERR_CERT_COMMON_NAME_INVALID: 'its TLS certificate is for another name',
  ERR_CERT_DATE_INVALID: 'its TLS certificate has expired or is not yet valid',
  ERR_SSL_PROTOCOL_ERROR: 'the TLS handshake failed',
  ERR_TOO_MANY_REDIRECTS: 'it redirects in a loop',
  ERR_INVALID_HTTP_RESPONSE: 'the site answered with what is not valid HTTP',
  // https and wss through the embedded Grid's proxy: the browser shows none of the proxy's answer.
  ERR_TUNNEL_CONNECTION_FAILED:
    "the browsers' proxy could not open it: no such host, nothing listening, or a port of the browsers' own host that BROWSER_LOOPBACK_PORTS does not open",
};

/**
 * What Firefox's error pages (about:neterror?e=…, about:certerror?e=…) mean. geckodriver fails
 * the navigation with "Reached error page: <that address>", which also carries the full URL
 * asked for and Firefox's prose: only the code is kept.
 */
const FIREFOX_MEANING: Record<string, string> = {
  dnsNotFound: 'no such host name',
  connectionFailure: 'nothing is listening there',
  netTimeout: 'the host did not answer',
  netReset: 'the connection was reset',
  netInterrupt: 'the connection was closed',
  redirectLoop: 'it redirects in a loop',
  nssFailure2: 'the TLS handshake failed',
  nssBadCert: 'its TLS certificate is not trusted',
  unknownSocketType: 'the server does not speak the protocol of the address',
  proxyConnectFailure: "the browsers' proxy refused the connection",
  blockedByPolicy: 'the browser is not allowed to open it',
  malformedURI: 'the address is not valid',
};

/**
 * The site's failure, not ours, whichever browser says it: chromedriver as "unknown error:
 * net::ERR_…", geckodriver as "Reached error page: about:neterror?e=…". A 502 naming the
 * address (its origin only: never a path or credentials) and the browser's reason.
 */
function unreachable(err: unknown, where: string): PageUnreachable | undefined {
  const message = err instanceof Error ? err.message : '';
  const chromium = /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  if (chromium) {
    return unreachableFor(`net::${chromium}`, MEANING[chromium], where);
  }
  const firefox = /Reached error page: about:[a-z]+\?e=([A-Za-z0-9]+)/.exec(message)?.[1];
  if (firefox) {
    return unreachableFor(
      `Firefox's ${firefox}`,
      Object.hasOwn(FIREFOX_MEANING, firefox) ? FIREFOX_MEANING[firefox] : undefined,
      where,
    );
  }
  return undefined;
}

function unreachableFor(reason: string | undefined, meaning: string | undefined, where: string): PageUnreachable {
  return new PageUnreachable(
    `${where} could not be loaded: ${reason ?? 'the browser shows its error page'}${meaning ? ` (${meaning})` : ''}. Check the address, or retry once the site answers.`,
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'The page';
  }
}
