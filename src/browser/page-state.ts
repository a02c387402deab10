import { error as wdError, type WebDriver } from 'selenium-webdriver';
import { z } from 'zod';
import { inPage, topPage } from './scripts.js';

/** Where the browser is: every acting tool answers it, and the workspace remembers it. */
export const pageState = z.object({
  url: z.string().describe('the page the browser is on now'),
  title: z.string(),
  dialog: z
    .object({ message: z.string() })
    .optional()
    .describe('a page dialog is open: answer it with the dialog tool'),
});

export type PageState = z.infer<typeof pageState>;

/** Exported for bench/: the raw baseline reads the page with the same script. */
export const TOP_PAGE = inPage(topPage);

/**
 * Where the browser is now. When a page dialog is open WebDriver refuses to read the page,
 * so the state says so instead and the caller is pointed at the dialog tool.
 */
export async function readPageState(driver: WebDriver): Promise<PageState> {
  try {
    const top = await driver.executeScript<[string, string] | null>(TOP_PAGE);
    if (top) {
      return { url: top[0], title: top[1] };
    }
    const [url, title] = await Promise.all([driver.getCurrentUrl(), driver.getTitle()]);
    return { url, title };
  } catch (err) {
    if (err instanceof wdError.UnexpectedAlertOpenError) {
      const message = err.getAlertText() ?? (await driver.switchTo().alert().getText());
      return { url: '', title: '', dialog: { message } };
    }
    throw err;
  }
}
