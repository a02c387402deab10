import type { WebDriver } from 'selenium-webdriver';
import { BadRequest } from '../errors.js';
import { sendCommand } from './commands.js';
import { findElement, type Selector } from './selectors.js';

export interface ScreenshotRequest {
  selector?: Selector;
  fullPage: boolean;
  width?: number;
  waitSeconds: number;
}

/** A PNG, base64. Full-page and scaled shots use Chrome's DevTools; WebDriver has neither. */
export async function takeScreenshot(driver: WebDriver, browserName: string, request: ScreenshotRequest): Promise<string> {
  if (request.selector) {
    const element = await findElement(driver, request.selector, request.waitSeconds);
    return element.takeScreenshot();
  }
  if (!request.fullPage && request.width === undefined) {
    return driver.takeScreenshot();
  }
  if (browserName !== 'chrome') {
    throw new BadRequest('full_page and width need a Chrome browser; take a viewport screenshot, or open_session with browser "chrome".');
  }
  return captureWithDevTools(driver, request.fullPage, request.width);
}

async function captureWithDevTools(driver: WebDriver, fullPage: boolean, width: number | undefined): Promise<string> {
  const [pageWidth, pageHeight, viewWidth, viewHeight] = await driver.executeScript<[number, number, number, number]>(
    'const d = document.documentElement; return [d.scrollWidth, d.scrollHeight, window.innerWidth, window.innerHeight];',
  );
  const clipWidth = fullPage ? Math.max(pageWidth, viewWidth) : viewWidth;
  const clipHeight = fullPage ? Math.max(pageHeight, viewHeight) : viewHeight;
  const scale = width === undefined ? 1 : Math.min(1, width / clipWidth);
  const top = fullPage ? 0 : await scrollTop(driver);
  const result = await sendCommand<{ data: string }>(driver, 'sendDevToolsCommand', {
    cmd: 'Page.captureScreenshot',
    params: { format: 'png', captureBeyondViewport: fullPage, clip: { x: 0, y: top, width: clipWidth, height: clipHeight, scale } },
  });
  return result.data;
}

async function scrollTop(driver: WebDriver): Promise<number> {
  return driver.executeScript<number>('return window.scrollY');
}

export async function printPdf(driver: WebDriver, options: { landscape: boolean; background: boolean }): Promise<string> {
  return sendCommand<string>(driver, 'printPage', {
    orientation: options.landscape ? 'landscape' : 'portrait',
    background: options.background,
  });
}
