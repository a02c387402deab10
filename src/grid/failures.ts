import { wdError } from '../browser/webdriver.js';
import { GridUnavailable, NotFound } from '../errors.js';
import type { BrowserKind } from './capabilities.js';

/**
 * The Grid's failures said as ours: an unreachable Grid, a refused or unstartable browser, a
 * session the Grid no longer knows. Each carries its remedy.
 */

/** The browser is gone from the Grid: ended, or reaped after idling. */
export class BrowserGone extends NotFound {
  constructor() {
    super('The browser has ended (closed, or reaped by the Grid after idling); call open_session to start a new one.');
  }
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);

/** selenium-webdriver's HTTP client drops the socket error's code and keeps it as the message's first word. */
function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) {
    return false;
  }
  const code = 'code' in err ? err.code : undefined;
  return (typeof code === 'string' && UNREACHABLE.has(code)) || UNREACHABLE.has(err.message.split(/[\s:]/)[0] ?? '');
}

const BROWSER_NAMES: Record<BrowserKind, string> = { chrome: 'Chrome', firefox: 'Firefox' };
const DRIVERS: Record<BrowserKind, { name: string; setup: string }> = {
  chrome: { name: 'chromedriver', setup: 'npm run setup installs chromium-driver' },
  firefox: { name: 'geckodriver', setup: 'npm run setup builds it with cargo' },
};

/**
 * A node that has the browser but cannot start it answers "session not created" at once; said
 * as what it is, naming the browser, not as a busy Grid. The node's words are the driver
 * service's: "Driver server process died prematurely" when the driver itself did not start,
 * else the driver's own one-line reason after "Message:" (geckodriver: "binary is not a
 * Firefox executable"). Only that line is quoted, never the Grid's host and build lines.
 */
export function browserNotStarted(
  err: unknown,
  kind: BrowserKind,
  offered?: ReadonlySet<string>,
): GridUnavailable | undefined {
  if (!(err instanceof wdError().SessionNotCreatedError)) {
    return undefined;
  }
  const name = BROWSER_NAMES[kind];
  const driver = DRIVERS[kind];
  const other: BrowserKind = kind === 'firefox' ? 'chrome' : 'firefox';
  const instead = offered?.has(other) ? `, or pass browser: "${other}"` : '';
  if (/driver server process died prematurely|timed out waiting for driver server/i.test(err.message)) {
    return new GridUnavailable(
      `The Grid's node could not start ${name}: its ${driver.name} failed to start. Repair ${driver.name} on the node (the embedded Grid: ${driver.setup}, then restart)${instead}.`,
    );
  }
  if (/error while creating session with the driver service/i.test(err.message)) {
    const said = /Message: ([^\n]{1,200})/.exec(err.message)?.[1]?.trim();
    return new GridUnavailable(
      `The Grid's node could not start ${name}: ${driver.name} started but ${name} did not${said ? ` ("${said}")` : ''}. Check ${name} on the node${instead}.`,
    );
  }
  return undefined;
}

/**
 * Runs a WebDriver call and turns the Grid's own failures into ours: an unreachable Grid or
 * one that refuses a session is a 503, a session it no longer knows is a 404 with the remedy.
 * Page-level WebDriver errors pass through for the browser layer to explain.
 */
export async function gridCall<T>(fn: () => Promise<T>, opening = false): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateGridError(err, opening);
  }
}

export function translateGridError(err: unknown, opening = false): unknown {
  if (err instanceof wdError().NoSuchSessionError) {
    return new BrowserGone();
  }
  if (err instanceof wdError().SessionNotCreatedError) {
    return new GridUnavailable(
      'The Grid could not start a browser (no free slot or no matching node); end a browser you no longer need, or retry shortly.',
    );
  }
  if (isUnreachable(err)) {
    return new GridUnavailable(
      'The Selenium Grid is unreachable; check GRID_URL and that the Grid is running, then retry.',
    );
  }
  if (opening && err instanceof wdError().WebDriverError) {
    return new GridUnavailable(
      `The Grid refused to start a browser (${err.name}); check the Grid's nodes, then retry.`,
    );
  }
  return err;
}
