import type { WebDriver } from 'selenium-webdriver';

/** Sets the window's size; answers the size the browser kept (it may keep one of its own). */
export async function resizeWindow(
  driver: WebDriver,
  width: number,
  height: number,
): Promise<{ width: number; height: number }> {
  const rect = await driver.manage().window().setRect({ width, height });
  return { width: rect.width, height: rect.height };
}
