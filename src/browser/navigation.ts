import type { WebDriver } from 'selenium-webdriver';

export type HistoryAction = 'back' | 'forward' | 'refresh';

export async function navigateTo(driver: WebDriver, url: string): Promise<void> {
  await driver.get(url);
}

export async function moveThroughHistory(driver: WebDriver, action: HistoryAction): Promise<void> {
  const nav = driver.navigate();
  if (action === 'back') {
    await nav.back();
  } else if (action === 'forward') {
    await nav.forward();
  } else {
    await nav.refresh();
  }
}
