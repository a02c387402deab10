import { PNG } from 'pngjs';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { gridFetch } from '../../src/grid/grid.js';
import { gridIdOf, type RunningServer } from '../helpers/server.js';

/**
 * What a person sees of a live view (the admin page's Live tab, the MCP App) and where their
 * click lands: the same measures for both, so both are held to one picture.
 */

/** Share of the pixels of a PNG (a screenshot of the page) that are near black, as a person sees them. */
export function darkShare(png: Buffer): number {
  const { data, width, height } = PNG.sync.read(png);
  let dark = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.max(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0) < 50) {
      dark += 1;
    }
  }
  return dark / (width * height);
}

/** Runs a script in the workspace's browser over WebDriver, beside the server: the stand-in for a person's eyes. */
export type InBrowser = <T>(script: string) => Promise<T>;

export function inWorkspaceBrowser(running: RunningServer, gridUrl: string, workspace: string): InBrowser {
  return async <T>(script: string): Promise<T> => {
    const gridId = await gridIdOf(running, workspace);
    const response = await gridFetch(`${gridUrl}/session/${gridId}/execute/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ script, args: [] }),
    });
    return ((await response.json()) as { value: T }).value;
  };
}

/**
 * Clicks the picture `canvas` (noVNC's, the whole remote screen) where the workspace's browser
 * shows the element `selector`, at its centre; answers that centre in the page's own pixels.
 */
export async function clickInPicture(
  page: Page,
  canvas: Locator,
  inBrowser: InBrowser,
  selector: string,
): Promise<{ x: number; y: number }> {
  const [left, top, chromeWidth, chromeHeight, x, y] = await inBrowser<number[]>(
    `const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
     return [window.screenX, window.screenY, window.outerWidth - window.innerWidth,
             window.outerHeight - window.innerHeight, r.left + r.width / 2, r.top + r.height / 2];`,
  );
  const box = await canvas.boundingBox();
  const remoteWidth = await canvas.evaluate((c: HTMLCanvasElement) => c.width);
  const scale = box!.width / remoteWidth;
  const screenX = left! + chromeWidth! / 2 + x!;
  const screenY = top! + chromeHeight! + y!;
  await page.mouse.click(box!.x + screenX * scale, box!.y + screenY * scale);
  return { x: x!, y: y! };
}

/**
 * Expects the frame to show the browser's window, shaped `window`, edge to edge: none of the black
 * screen beyond it, no picture falling short of the frame, no strip of screen at its left or top.
 * The page shown must be light: what is dark in the frame is screen beyond the window, or no picture.
 */
export async function expectWindowFillsFrame(
  page: Page,
  frame: Locator,
  canvas: Locator,
  window: { width: number; height: number },
): Promise<{ width: number; height: number }> {
  await expect.poll(async () => darkShare(await frame.screenshot()), { timeout: 20_000 }).toBeLessThan(0.02);
  const outer = (await frame.boundingBox())!;
  const picture = (await canvas.boundingBox())!;
  expect(picture.x).toBeLessThanOrEqual(outer.x + 1);
  expect(picture.y).toBeLessThanOrEqual(outer.y + 1);
  expect(picture.x + picture.width).toBeGreaterThanOrEqual(outer.x + outer.width - 1);
  expect(picture.y + picture.height).toBeGreaterThanOrEqual(outer.y + outer.height - 1);
  expect(outer.width / outer.height).toBeCloseTo(window.width / window.height, 1);
  const edge = (clip: { x: number; y: number; width: number; height: number }) => page.screenshot({ clip });
  expect(darkShare(await edge({ x: outer.x, y: outer.y + 12, width: 4, height: outer.height - 24 }))).toBeLessThan(0.1);
  expect(darkShare(await edge({ x: outer.x + 12, y: outer.y, width: outer.width - 24, height: 4 }))).toBeLessThan(0.1);
  return outer;
}
