import { setTimeout as delay } from 'node:timers/promises';
import type { WebDriver } from 'selenium-webdriver';
import { BadRequest, Conflict } from '../errors.js';
import { FIREFOX_FULL_SCREENSHOT, sendForBase64 } from './commands.js';
import { cropPng, scalePngToWidth } from './png.js';
import { findElement, type Selector } from './selectors.js';
import { inPage, pageSize, scrollOffset } from './scripts.js';
import { documentsInReach, maskSecrets, unmaskSecrets } from './secret-scripts.js';
import { wdError } from './webdriver.js';

export interface ScreenshotRequest {
  selector?: Selector;
  fullPage: boolean;
  width?: number;
  waitSeconds: number;
}

/**
 * A PNG, base64. WebDriver has no full-page or scaled shot: Chrome's come from its DevTools,
 * Firefox's from geckodriver's full-document screenshot, cropped and scaled here.
 */
export async function takeScreenshot(
  driver: WebDriver,
  browserName: string,
  request: ScreenshotRequest,
): Promise<string> {
  const element = request.selector ? await findElement(driver, request.selector, request.waitSeconds) : undefined;
  const rect = element ? await element.getRect() : undefined;
  if (rect && (rect.width === 0 || rect.height === 0)) {
    throw new BadRequest(
      'That element has no size (hidden or empty), so there is nothing to capture; pick a visible element, or wait for it with assert state visible.',
    );
  }
  if (!request.fullPage && request.width === undefined) {
    return element ? element.takeScreenshot() : driver.takeScreenshot();
  }
  if (browserName === 'firefox') {
    return firefoxScreenshot(driver, request, rect);
  }
  if (browserName !== 'chrome') {
    throw new BadRequest(
      'full_page and width need a Chrome or Firefox browser; take a viewport screenshot, or open_session with browser "chrome".',
    );
  }
  // WebDriver's element rect is in page coordinates, as DevTools clips; beyond the viewport
  // so an element taller than the window comes out whole.
  const clip = rect ? { ...rect, beyondViewport: true } : await pageClip(driver, request.fullPage);
  return captureWithDevTools(driver, clip, request.width);
}

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
  beyondViewport: boolean;
}

async function pageClip(driver: WebDriver, fullPage: boolean): Promise<Clip> {
  const [pageWidth, pageHeight, viewWidth, viewHeight] = await driver.executeScript<[number, number, number, number]>(
    inPage(pageSize),
  );
  return {
    x: 0,
    y: fullPage ? 0 : await scrollTop(driver),
    width: fullPage ? Math.max(pageWidth, viewWidth) : viewWidth,
    height: fullPage ? Math.max(pageHeight, viewHeight) : viewHeight,
    beyondViewport: fullPage,
  };
}

async function captureWithDevTools(driver: WebDriver, clip: Clip, width: number | undefined): Promise<string> {
  const scale = width === undefined ? 1 : Math.min(1, width / clip.width);
  return sendForBase64(driver, 'sendDevToolsCommand', {
    cmd: 'Page.captureScreenshot',
    params: {
      format: 'png',
      captureBeyondViewport: clip.beyondViewport,
      clip: { x: clip.x, y: clip.y, width: clip.width, height: clip.height, scale },
    },
  });
}

/**
 * geckodriver's full-document screenshot is in document coordinates, as WebDriver's element
 * rect is: an element is cropped from it, whole even beyond the window (Firefox's own element
 * screenshot stops at the viewport).
 */
async function firefoxScreenshot(
  driver: WebDriver,
  request: ScreenshotRequest,
  rect: { x: number; y: number; width: number; height: number } | undefined,
): Promise<string> {
  let png: string;
  if (rect || request.fullPage) {
    png = await sendForBase64(driver, FIREFOX_FULL_SCREENSHOT, {});
    if (rect) {
      const ratio = await driver.executeScript<number>('return window.devicePixelRatio || 1');
      png = cropPng(png, {
        x: rect.x * ratio,
        y: rect.y * ratio,
        width: rect.width * ratio,
        height: rect.height * ratio,
      });
    }
  } else {
    png = await driver.takeScreenshot();
  }
  return request.width === undefined ? png : scalePngToWidth(png, request.width);
}

async function scrollTop(driver: WebDriver): Promise<number> {
  return driver.executeScript<number>(inPage(scrollOffset));
}

/**
 * A PDF, base64. chromedriver reports Chromium's refusals to print as an invalid argument (the
 * arguments here are always valid): one is tried again, for up to about 3.5 s, before it is the
 * answer, a 409 in Chromium's words. A headed Chromium (a watchable slot's) always refuses:
 * "Printing is not available".
 */
export async function printPdf(
  driver: WebDriver,
  options: { landscape: boolean; background: boolean },
): Promise<string> {
  const args = { orientation: options.landscape ? 'landscape' : 'portrait', background: options.background };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await sendForBase64(driver, 'printPage', args);
    } catch (error) {
      if (!(error instanceof wdError().InvalidArgumentError)) {
        throw error;
      }
      if (attempt === PRINT_ATTEMPTS) {
        throw new Conflict(
          `The browser would not print this page (${printRefusal(error.message)}); call print again in a moment, or take a full_page screenshot instead.`,
        );
      }
      await delay(PRINT_RETRY_MS * attempt);
    }
  }
}

/** chromedriver's cause, on the line below its "invalid argument" (Chromium's own words, never the page's). */
function printRefusal(message: string): string {
  const cause = message
    .split('\n')[1]
    ?.replace(/^from unknown error:\s*/, '')
    .trim();
  return cause ? `Chromium said: ${cause.slice(0, 200)}` : 'chromedriver gave no reason';
}

const PRINT_ATTEMPTS = 5;
const PRINT_RETRY_MS = 350;

const MASK = inPage(maskSecrets, { documentsInReach });
const UNMASK = inPage(unmaskSecrets, { documentsInReach });

/**
 * Runs a capture (screenshot, print) with the fields a secret was typed into blanked, and
 * puts them back after. `carriesSecret` undefined: nothing was typed into this browser, and
 * the capture runs as is. When the page shows a typed value anywhere else (its text, another
 * field), pixels would too: nothing is captured, and the answer is undefined.
 */
export async function withSecretsMasked<T>(
  driver: WebDriver,
  carriesSecret: ((text: string) => boolean) | undefined,
  capture: () => Promise<T>,
): Promise<T | undefined> {
  if (!carriesSecret) {
    return capture();
  }
  const shown = await driver.executeScript<string>(MASK);
  try {
    return carriesSecret(shown) ? undefined : await capture();
  } finally {
    await driver.executeScript(UNMASK);
  }
}
