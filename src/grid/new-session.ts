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
 * A headed Chromium lists its omnibox's popup (chrome://omnibox-popup.top-chrome/, a page no
 * tab shows) among its windows, and chromedriver may start a session on it rather than on the
 * window's tab: every page the agent opened then loaded where no window showed it, and a person
 * watching saw the blank tab and typed into it (seen under load, in CI). Such a session is moved
 * to the tab; a session already on one costs one read.
 */
export async function startOnTheTab(driver: WebDriver): Promise<void> {
  if (!(await driver.getCurrentUrl()).startsWith(BROWSER_UI)) {
    return;
  }
  for (const handle of await driver.getAllWindowHandles()) {
    await driver.switchTo().window(handle);
    if (!(await driver.getCurrentUrl()).startsWith(BROWSER_UI)) {
      return;
    }
  }
}

/** The browser's own user interface, drawn as web pages (the omnibox's popup, say). */
const BROWSER_UI = 'chrome://';
