import type { WebDriver } from 'selenium-webdriver';

export async function resizeWindow(driver: WebDriver, width: number, height: number): Promise<void> {
  await driver.manage().window().setRect({ width, height });
}
