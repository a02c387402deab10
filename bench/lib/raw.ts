import { Builder, By, type WebDriver, until } from 'selenium-webdriver';
import { browserCapabilities, type BrowserKind } from '../../src/grid/capabilities.js';
import {
  EMAIL,
  PASSWORD,
  StepClock,
  WINDOW,
  pages,
  type Configuration,
  type StepObserver,
  type TaskRun,
} from './task.js';

/**
 * How the raw script reads the 50 rows:
 * - `script`: one executeScript, the same page work our `extract` does: the floor.
 * - `per-row`: findElements, then getText on every row (51 WebDriver commands), the way many
 *   hand-written scripts do it. Informational: it shows what "natural" costs.
 */
export type RowRead = 'script' | 'per-row';

export const ROWS_SCRIPT = "return Array.from(document.querySelectorAll('#data tbody tr'), (r) => r.innerText);";

/** The id of the raw script (the floor) on a browser: `raw` for Chromium, `raw-firefox`. */
export const rawId = (browser: BrowserKind) => (browser === 'chrome' ? 'raw' : `raw-${browser}`);

/** The floor: a plain selenium-webdriver script against the same Grid, with our exact capabilities. */
export function rawConfiguration(
  gridUrl: string,
  siteUrl: string,
  rowRead: RowRead,
  browser: BrowserKind = 'chrome',
  /** what the server asks a new browser for (Grid.capabilitiesFor): the same, so only our own work differs */
  capabilities: Record<string, unknown> = browserCapabilities(browser, WINDOW),
): Configuration {
  const url = pages(siteUrl);
  const on = browser === 'chrome' ? '' : ', Firefox';
  return {
    id: rowRead === 'script' ? rawId(browser) : `${rawId(browser)}-per-row`,
    label: rowRead === 'script' ? `raw selenium-webdriver${on} (floor)` : `raw, rows read one by one${on}`,
    informational: rowRead !== 'script',
    baseline: rawId(browser),
    run: async (beforeStep?: StepObserver): Promise<TaskRun> => {
      const clock = new StepClock(beforeStep);
      let driver: WebDriver | undefined;
      let quit = false;
      try {
        driver = await clock.step(async () => {
          const d = await new Builder().usingServer(gridUrl).withCapabilities(capabilities).build();
          await d.get(url.login);
          return d;
        });
        const d = driver;
        await clock.step(() => d.findElement(By.css('#email')).sendKeys(EMAIL));
        await clock.step(() => d.findElement(By.css('#password')).sendKeys(PASSWORD));
        await clock.step(() => d.findElement(By.css('#submit')).click());
        // The submit's navigation can still be starting when the click returns (a round of the 12-03
        // bench failed here); waiting costs one findElements when the heading is there, and our tools wait too.
        const greeting = await clock.step(() => d.wait(until.elementLocated(By.css('#greeting')), 5000).getText());
        await clock.step(() => d.findElement(By.css('#to-table')).click());
        const rows = await clock.step(async () => {
          if (rowRead === 'script') {
            return d.executeScript<string[]>(ROWS_SCRIPT);
          }
          const found = await d.findElements(By.css('#data tbody tr'));
          return Promise.all(found.map((row) => row.getText()));
        });
        await clock.step(() => d.get(url.heavy));
        const heavyTitle = await clock.step(() => d.findElement(By.css('#heavy-title')).getText());
        const png = await clock.step(async () => Buffer.from(await d.takeScreenshot(), 'base64'));
        await clock.step(() => d.navigate().back());
        await clock.step(() => d.quit());
        quit = true;
        return { stepMs: clock.stepMs, totalMs: clock.elapsed(), answers: { greeting, rows, heavyTitle, png } };
      } finally {
        if (driver && !quit) {
          await driver.quit().catch(() => undefined);
        }
      }
    },
  };
}
