import type { WebDriver } from 'selenium-webdriver';
import { seleniumCommand } from './webdriver.js';

/** geckodriver's own command (the Grid forwards it): a PNG of the whole document, not just the viewport. */
export const FIREFOX_FULL_SCREENSHOT = 'mozFullScreenshot';

/**
 * Sends a raw WebDriver command. The bindings' own helpers for these are either missing
 * from the types (print) or Chrome-only classes an attached driver is not (DevTools).
 */
async function sendCommand(driver: WebDriver, name: string, parameters: Record<string, unknown>): Promise<unknown> {
  return driver.execute(new (seleniumCommand().Command)(name).setParameters(parameters));
}

/** A DevTools command run by chromedriver on the browser's tab (the Grid forwards `goog/cdp/execute`). */
export async function sendDevTools(driver: WebDriver, cmd: string, params: Record<string, unknown>): Promise<unknown> {
  return sendCommand(driver, 'sendDevToolsCommand', { cmd, params });
}

/**
 * A command that answers base64 (a PNG, a PDF): as a string, or under `data` as DevTools
 * answers. Anything else is a driver that does not speak the command as its protocol says.
 */
export async function sendForBase64(
  driver: WebDriver,
  name: string,
  parameters: Record<string, unknown>,
): Promise<string> {
  const answer = await sendCommand(driver, name, parameters);
  if (typeof answer === 'string') {
    return answer;
  }
  if (typeof answer === 'object' && answer !== null && 'data' in answer && typeof answer.data === 'string') {
    return answer.data;
  }
  throw new Error(`The driver answered ${name} without base64 data.`);
}
