import type { WebDriver } from 'selenium-webdriver';
import { Cdp, withTimeout } from './devtools.js';

/** How a browser whose call ran out of time was left, said in the 504. */
export type Recovery = 'tab_replaced' | 'browser_closed' | 'not_recovered';

/**
 * A page whose script never yields (`while(true){}`) blocks chromedriver: every later command
 * on that browser, DELETE included, waits behind it for ever. The browser process itself still
 * answers DevTools, through the Grid's `se:cdp` proxy, so the tab is replaced from there: a blank
 * tab is opened, the old ones are closed (which ends the hung command), and the driver moves to
 * the new tab. Cookies and logins stay. If even that fails, the browser is closed.
 */
export async function recoverHungBrowser(
  driver: WebDriver,
  devtools: string | undefined,
  timeoutMs: number,
): Promise<Recovery> {
  if (!devtools) {
    return 'not_recovered';
  }
  let cdp: Cdp | undefined;
  try {
    cdp = await Cdp.connect(devtools, timeoutMs);
    const pages = await cdp.pages();
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
    if (typeof targetId !== 'string') {
      throw new Error('Target.createTarget answered no target');
    }
    for (const page of pages) {
      await cdp.send('Target.closeTarget', { targetId: page.targetId });
    }
    // chromedriver names a window by its DevTools target id.
    await withTimeout(driver.switchTo().window(targetId), timeoutMs);
    return 'tab_replaced';
  } catch {
    try {
      await cdp?.send('Browser.close');
      return 'browser_closed';
    } catch {
      return 'not_recovered';
    }
  } finally {
    cdp?.close();
  }
}
