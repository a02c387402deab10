import type { WebDriver } from 'selenium-webdriver';
import { PageUnreachable } from '../errors.js';

export type HistoryAction = 'back' | 'forward' | 'refresh';

export async function navigateTo(driver: WebDriver, url: string): Promise<void> {
  try {
    await driver.get(url);
  } catch (err) {
    throw unreachable(err, originOf(url)) ?? err;
  }
}

export async function moveThroughHistory(driver: WebDriver, action: HistoryAction): Promise<void> {
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
};

/**
 * chromedriver reports a page that could not load as "unknown error: net::ERR_…": the site's
 * failure, not ours, so a 502 naming the address (its origin only: never a path or credentials)
 * and Chromium's reason.
 */
function unreachable(err: unknown, where: string): PageUnreachable | undefined {
  const reason = err instanceof Error ? /net::(ERR_[A-Z0-9_]+)/.exec(err.message)?.[1] : undefined;
  if (!reason) {
    return undefined;
  }
  const meaning = MEANING[reason];
  return new PageUnreachable(
    `${where} could not be loaded: net::${reason}${meaning ? ` (${meaning})` : ''}. Check the address, or retry once the site answers.`,
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'The page';
  }
}
