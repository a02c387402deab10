import type { WebDriver } from 'selenium-webdriver';
import { seleniumCommand } from './webdriver.js';

/** geckodriver's own command (the Grid forwards it): a PNG of the whole document, not just the viewport. */
export const FIREFOX_FULL_SCREENSHOT = 'mozFullScreenshot';

/**
 * Sends a raw WebDriver command. The bindings' own helpers for these are either missing
 * from the types (print) or Chrome-only classes an attached driver is not (DevTools).
 */
export async function sendCommand<T>(driver: WebDriver, name: string, parameters: Record<string, unknown>): Promise<T> {
  const result: unknown = await driver.execute(new (seleniumCommand().Command)(name).setParameters(parameters));
  return result as T;
}
