import type { Session, WebDriver } from 'selenium-webdriver';
import type { Executor } from 'selenium-webdriver/http/index.js';
import { selenium, seleniumCommand, seleniumSession } from '../browser/webdriver.js';

/**
 * Asks the Grid for a new browser with exactly `capabilities`, sent as selenium-webdriver's own
 * WebDriver.createSession sends them (W3C: all in alwaysMatch, one empty firstMatch; every key we
 * ask is a W3C one or vendor-prefixed, so none is dropped), and answers its session.
 *
 * The executor sends it without the WebDriver class: that class is most of selenium-webdriver
 * (~60 ms of compiling in a fresh Node 20 process, jszip and ws with it), and the Grid takes
 * hundreds of ms to start a browser. So a fresh process's first browser loads it while the Grid
 * works, once the request is on its way, rather than before sending it.
 */
export async function newSession(executor: Executor, capabilities: Record<string, unknown>): Promise<Session> {
  const { Command, Name } = seleniumCommand();
  const answer = Promise.resolve<unknown>(
    executor.execute(
      new Command(Name.NEW_SESSION).setParameter('capabilities', { firstMatch: [{}], alwaysMatch: capabilities }),
    ),
  );
  setImmediate(() => {
    try {
      selenium();
    } catch {
      // Thrown again, and answered, where the browser is first driven.
    }
  });
  const session = await answer;
  if (!(session instanceof seleniumSession())) {
    throw new Error('The Grid answered a new session without its id.');
  }
  return session;
}

/**
 * Chromium lists its omnibox's popup (chrome://omnibox-popup.top-chrome/, a hidden 1 × 1 page
 * no tab shows) among its windows, headless or headed, and chromedriver may start a session on
 * it rather than on the browser's one tab: the agent's pages then loaded where no window showed
 * them, a screenshot was 1 pixel wide, and a person watching saw the blank tab and typed into it
 * (seen under load, in CI). chromedriver opens that tab on `data:,`: a session elsewhere is
 * moved to it, and one already there costs one read.
 */
export async function startOnTheTab(driver: WebDriver): Promise<void> {
  if ((await driver.getCurrentUrl()) === FIRST_TAB) {
    return;
  }
  const started = await driver.getWindowHandle();
  for (const handle of await driver.getAllWindowHandles()) {
    await driver.switchTo().window(handle);
    if ((await driver.getCurrentUrl()) === FIRST_TAB) {
      return;
    }
  }
  await driver.switchTo().window(started);
}

/** Where chromedriver opens a new browser's tab. */
const FIRST_TAB = 'data:,';
