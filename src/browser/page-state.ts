import type { WebDriver } from 'selenium-webdriver';
import { z } from 'zod';
import { documentWentAway } from './errors.js';
import { frameDiscarded } from './frames.js';
import { wdError } from './webdriver.js';
import { poll } from '../poll.js';
import { inPage, navigationSettled, topPage, topPageAfterTasks, watchNavigations } from './scripts.js';

/** Where the browser is: every acting tool answers it, and the workspace remembers it. */
export const pageState = z.object({
  url: z.string().describe('the page the browser is on now'),
  title: z.string(),
  dialog: z
    .object({ message: z.string() })
    .optional()
    .describe('a page dialog is open: answer it with the dialog tool'),
  opened_tabs: z.array(z.number()).optional().describe('tabs the act opened, by place: navigate {tab} moves there'),
  frame_gone: z
    .string()
    .optional()
    .describe('the frame the act ran in went away during it: the act is done, and the browser is on the top page'),
});

export type PageState = z.infer<typeof pageState>;

/** Exported for bench/: the raw baseline reads the page with the same script. */
export const TOP_PAGE = inPage(topPage, { watchNavigations });
const TOP_PAGE_AFTER_TASKS = inPage(topPageAfterTasks, { topPage, watchNavigations });

/** Where the browser is now. */
export async function readPageState(driver: WebDriver): Promise<PageState> {
  return readPage(driver, () => driver.executeScript<[string, string] | null>(TOP_PAGE));
}

/**
 * Where an act left the browser. chromedriver can answer a click, and a read sent right after
 * it, before the navigation the click started (a form's submission is a task the page queues)
 * has reached it: the answer named the page being left (1 or 2 clicks in 30 on a busy page),
 * and an agent told it is still on the login page may submit again. The read lets the page's
 * queued tasks run first; when a navigation away started, the page is read again, which the
 * driver runs once that navigation has loaded.
 */
export async function readPageAfterAct(driver: WebDriver): Promise<PageState> {
  return readPage(driver, async () => {
    let top: [string, string] | null | 'leaving' | 'broken';
    try {
      top = await driver.executeScript<[string, string] | null | 'leaving' | 'broken'>(TOP_PAGE_AFTER_TASKS);
    } catch (err) {
      // The document went away under the script, or the page broke it: read again. A page
      // that truly never yields holds the second read too, until the call's deadline
      // recovers the browser.
      const { JavascriptError, ScriptTimeoutError } = wdError();
      if (!(documentWentAway(err) || err instanceof JavascriptError || err instanceof ScriptTimeoutError)) {
        throw err;
      }
      top = 'leaving';
    }
    if (top === 'broken') {
      // geckodriver reads the document it finds, one the act may be about to leave.
      await waitUntilSettled(driver, Date.now());
    }
    // null: a cross-origin frame, out of the script's reach; readPage asks the driver.
    return top === 'leaving' || top === 'broken' ? driver.executeScript<[string, string] | null>(TOP_PAGE) : top;
  });
}

/**
 * One of the reads above. When a page dialog is open WebDriver refuses to read the page, so
 * the state says so instead and the caller is pointed at the dialog tool.
 */
async function readPage(driver: WebDriver, readTop: () => Promise<[string, string] | null>): Promise<PageState> {
  try {
    const top = await readTop();
    if (top) {
      return { url: top[0], title: top[1] };
    }
    const [url, title] = await Promise.all([driver.getCurrentUrl(), driver.getTitle()]);
    return { url, title };
  } catch (err) {
    if (err instanceof wdError().UnexpectedAlertOpenError) {
      const message = err.getAlertText() ?? (await driver.switchTo().alert().getText());
      return { url: '', title: '', dialog: { message } };
    }
    // An act in a frame took the page away with it (a link to _top): the act is done, and the
    // page is read where chromedriver reads it, the top (the next call says the frame is gone).
    if (await frameDiscarded(driver, err)) {
      await driver.switchTo().defaultContent();
      return readPage(driver, readTop);
    }
    throw err;
  }
}

const NAVIGATION_SETTLED = inPage(navigationSettled, { watchNavigations });
/**
 * How long an act's navigation may take to commit and load before the page is read as it is. A
 * form whose answer is a download or a 204 starts a navigation that never leaves the page, and
 * nothing in the page says so: on Firefox such a submit answers after this long.
 */
const SETTLE_MS = 10_000;
const SETTLE_EVERY_MS = 50;
/**
 * How long an act on a page that broke the navigation watch waits for another document before
 * the page is read as it is: the act may have started no navigation, and geckodriver's own wait
 * after a click ends, under load, before the navigation the click started is seen.
 */
const BROKEN_WATCH_GRACE_MS = 2_000;

/** Waits until the navigation an act (done at `actedAt`) started, if any, has loaded. */
export async function waitUntilSettled(driver: WebDriver, actedAt: number): Promise<void> {
  await poll(
    async () => ((await settledNow(driver, Date.now() - actedAt >= BROKEN_WATCH_GRACE_MS)) ? true : undefined),
    SETTLE_MS,
    SETTLE_EVERY_MS,
  );
}

async function settledNow(driver: WebDriver, graceOver: boolean): Promise<boolean> {
  try {
    // A script that a navigation interrupts answers null (Firefox) or fails: not yet.
    return (await driver.executeScript<unknown>(NAVIGATION_SETTLED, graceOver)) === true;
  } catch (err) {
    if (err instanceof wdError().UnexpectedAlertOpenError) {
      return true; // the page opened a dialog: that is the page state now
    }
    if (err instanceof wdError().JavascriptError || err instanceof wdError().NoSuchFrameError) {
      return false;
    }
    throw err;
  }
}
