import { setTimeout as delay } from 'node:timers/promises';
import { recoverHungBrowser, type Recovery } from '../../browser/recovery.js';
import { TimedOut } from '../../errors.js';
import type { Grid } from '../../grid/grid.js';
import type { AttachedBrowser } from '../../workspace/workspaces.js';
import type { Capability } from '../capability.js';

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** How long recovering a hung browser may take, and how long the stopped call may take to let go after it. */
const RECOVERY_MS = 5_000;
const SETTLE_MS = 3_000;

export interface Deadline {
  /** CALL_TIMEOUT, in ms */
  callTimeoutMs: number;
  /** an outer bound this call must also meet (a flow run's end), epoch ms */
  until?: number;
}

/**
 * Runs one call within its deadline: CALL_TIMEOUT plus the wait the call itself asked for
 * (wait_timeout, assert's timeout), and never past an outer bound. When it runs out, the browser is
 * recovered first (a page that never yields blocks every later command on it), then the call
 * answers 504 and whoever waits for this browser's turn gets it. A WebDriver command cannot be
 * cancelled: the stopped call is given a moment to let go, then left to end on its own.
 */
export async function withinDeadline<T>(
  capability: Capability,
  args: Record<string, unknown>,
  deadline: Deadline,
  run: () => Promise<T>,
  recover: () => Promise<Recovery>,
): Promise<T> {
  const waits = (numberOr0(args.wait_timeout) + numberOr0(args.timeout)) * 1000;
  const own = deadline.callTimeoutMs + waits;
  const ms = Math.max(0, deadline.until === undefined ? own : Math.min(own, deadline.until - Date.now()));
  const work = run();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), ms);
  });
  try {
    const first = await Promise.race([work.then((value) => ({ value })), expired]);
    if (first !== 'expired') {
      return first.value;
    }
  } finally {
    clearTimeout(timer);
  }
  const recovery = capability.attach === 'none' ? undefined : await recover().catch((): Recovery => 'not_recovered');
  await Promise.race([work.catch(() => undefined), delay(SETTLE_MS)]);
  work.catch(() => undefined);
  const seconds = Math.round(ms / 1000);
  const bound =
    deadline.until !== undefined && ms < own
      ? 'the flow run has left (FLOW_RUN_TIMEOUT)'
      : `${seconds} s (CALL_TIMEOUT${waits > 0 ? ' plus the wait it asked for' : ''})`;
  throw new TimedOut(
    `${capability.name} did not finish within ${bound}, so it was stopped; ${RECOVERED[recovery ?? 'none']}`,
  );
}

const RECOVERED: Record<Recovery | 'none', string> = {
  tab_replaced:
    'the page was not answering (a script that never returns?), so its tab was closed and a blank tab opened in the same browser (cookies and logins are kept): navigate again.',
  browser_closed: 'the page was not answering and its browser had to be closed; the next acting call opens a new one.',
  not_recovered: 'call again, and if the browser still does not answer, call open_session for a new one.',
  none: 'call again.',
};

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Recovers the browser a call attached after the call ran out of time on it (see
 * recoverHungBrowser); a call that timed out before it attached one has none to recover.
 */
export async function recoverStuckBrowser(
  grid: Pick<Grid, 'end'>,
  browser: AttachedBrowser | undefined,
): Promise<Recovery> {
  if (!browser) {
    return 'not_recovered';
  }
  const recovery = await recoverHungBrowser(browser.driver, browser.devtools, RECOVERY_MS);
  if (recovery === 'browser_closed') {
    void grid.end(browser.gridId).catch(() => undefined);
  }
  return recovery;
}
