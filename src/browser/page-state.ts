import { error as wdError, type WebDriver } from 'selenium-webdriver';

export interface OpenDialog {
  message: string;
}

export interface PageState {
  url: string;
  title: string;
  dialog?: OpenDialog;
}

// Every act answers where the browser is, so this runs after each one: one script instead of
// getCurrentUrl + getTitle, which the driver runs one after the other (~40 ms a call on the
// Grid). `top` and `location` cannot be redefined by a page; from inside a cross-origin frame
// `top.document` is out of reach, and the two WebDriver commands answer instead.
// READ_TOP_PAGE is statements, for a script that reads something else in the same round trip.
export const READ_TOP_PAGE = 'let page = null; try { page = [top.location.href, top.document.title]; } catch (e) {}';
export const TOP_PAGE = `${READ_TOP_PAGE} return page;`;

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
