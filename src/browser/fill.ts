import { Key, type WebDriver, type WebElement } from 'selenium-webdriver';
import { BadRequest } from '../errors.js';

/**
 * The page that would receive keystrokes: the top-level address (from the browser, which no
 * page script can forge) and the address of the document the driver is in — the frame, when
 * it has entered one (`location` is unforgeable too).
 */
export async function receivingPage(driver: WebDriver): Promise<{ top: string; frame: string }> {
  const [top, frame] = await Promise.all([driver.getCurrentUrl(), driver.executeScript<unknown>('return window.location.href')]);
  return { top, frame: typeof frame === 'string' ? frame : '' };
}

/**
 * Types into an element without reading it back: the text never exists in an answer, and
 * an error that would quote it is replaced by one that does not.
 */
export async function fillElement(element: WebElement, text: string, options: { clear: boolean; submit: boolean }): Promise<void> {
  try {
    if (options.clear) {
      await element.clear();
    }
    await element.sendKeys(text);
    if (options.submit) {
      await element.sendKeys(Key.ENTER);
    }
  } catch (err) {
    if (err instanceof Error && text !== '' && err.message.includes(text)) {
      throw new BadRequest('The field refused the typed text; check the selector with outline.');
    }
    throw err;
  }
}
