import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedGrid, type EmbeddedGrid } from '../../src/embedded-grid/index.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { callHeldOpen } from '../helpers/running-call.js';
import { openWatchable, rest, startServer, type RunningServer } from '../helpers/server.js';
import {
  accessibilityViolations,
  launchBrowser,
  openTab,
  signIn,
  type AdminTab,
  type Page,
  type PageBrowser,
} from './browser.js';
import { clickInPicture, expectWindowFillsFrame, inWorkspaceBrowser, type InBrowser } from './live-picture.js';

const ADMIN = 'live-page-admin-token';
const TOKEN = 'live-page-bearer-token';
const WORKSPACE = 'ui-live';
const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };
const siteUrl = inject('siteUrl');
// Its own Grid with one watchable slot: the shared one's is taken in turn by other files.
let grid: EmbeddedGrid;
let gridUrl: string;
let running: RunningServer;
let browser: PageBrowser;
let tab: AdminTab;
let inBrowser: InBrowser;
/** every websocket the admin tab opened, with its ticket */
const sockets: string[] = [];

beforeAll(async () => {
  // LIVE_VIEW prefer: this file's agent browser takes the Grid's watchable slot (docs/live.md).
  grid = await startEmbeddedGrid({ maxSessions: 2, liveViews: 1, firefox: false, loopbackPorts: [FIXTURE_PORTS] });
  gridUrl = grid.url;
  [running, browser] = await Promise.all([
    startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN, LIVE_VIEW: 'prefer' }, gridUrl),
    launchBrowser(),
  ]);
  inBrowser = inWorkspaceBrowser(running, gridUrl, WORKSPACE);
  await openWatchable(running, WORKSPACE, agent, {
    first: { path: '/browser/navigate', body: { url: `${siteUrl}/login.html` } },
    gridUrl,
  });
  const status = await rest(running.url, `/admin/api/workspaces/${WORKSPACE}/live`, undefined, {
    authorization: `Bearer ${ADMIN}`,
  });
  expect(status.body, 'the agent browser runs on the watchable slot').toMatchObject({ watchable: true });
  tab = await openTab(browser, `${running.url}/admin/#/workspaces/${WORKSPACE}/live`);
  tab.page.on('websocket', (socket) => sockets.push(socket.url()));
  await signIn(tab, ADMIN);
}, 240_000);

afterAll(async () => {
  await fetch(`${running?.url}/admin/api/workspaces/${WORKSPACE}/control`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: '{}',
  }).catch(() => undefined);
  await browser?.close();
  if (running) {
    await rest(running.url, '/browser/end-browser', {}, agent);
    await running.close();
  }
  await grid?.stop();
});

/** Share of sampled canvas pixels that are near white, and how many distinct colours the samples hold. */
async function canvasPicture(page: Page): Promise<{ white: number; colours: number; width: number }> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('.screen canvas');
    const context = canvas?.getContext('2d');
    if (!canvas || !context || canvas.width === 0) {
      return { white: 0, colours: 0, width: 0 };
    }
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let white = 0;
    let samples = 0;
    const colours = new Set<number>();
    for (let y = 0; y < canvas.height; y += 8) {
      for (let x = 0; x < canvas.width; x += 8) {
        const i = (y * canvas.width + x) * 4;
        const [r = 0, g = 0, b = 0] = [data[i], data[i + 1], data[i + 2]];
        samples += 1;
        colours.add((r << 16) | (g << 8) | b);
        if (r > 240 && g > 240 && b > 240) {
          white += 1;
        }
      }
    }
    return { white: white / samples, colours: colours.size, width: canvas.width };
  });
}

/** The Live tab's card: the screenshots in docs/live.md show it alone. */
const liveCard = (page: Page) => page.locator('section[aria-labelledby="live-title"]');

const focusedId = () => inBrowser<string>('return document.activeElement ? document.activeElement.id : ""');

describe('the Live tab', () => {
  it('connects noVNC through the tunnel and shows the browser’s picture, view only', async () => {
    const page = tab.page;
    await page.getByRole('link', { name: 'Live', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Live', exact: true }).getAttribute('aria-current')).toBe('page');
    await page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
    expect(await page.getByText('Connected', { exact: true }).isVisible()).toBe(true);
    // The login page is white with dark text: the picture is the browser, not a black box.
    await expect.poll(async () => (await canvasPicture(page)).white, { timeout: 20_000 }).toBeGreaterThan(0.1);
    const picture = await canvasPicture(page);
    expect(picture.width).toBeGreaterThan(0);
    expect(picture.colours, 'text and fields, not a flat fill').toBeGreaterThan(8);
    // The ticket travelled in the websocket's URL; the admin token never did.
    expect(sockets).toHaveLength(1);
    expect(sockets[0]).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/admin/live/${WORKSPACE}\\?ticket=[\\w-]{32}$`));
    expect(sockets.join(' ')).not.toContain(ADMIN);
    expect(await page.getByRole('button', { name: 'Watch' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('button', { name: 'Paste…' }).isDisabled()).toBe(true);

    // Watching: a click on the picture does not reach the browser.
    await clickInPicture(page, page.locator('.screen canvas'), inBrowser, '#email');
    expect(await focusedId()).not.toBe('email');
    expect(await accessibilityViolations(page)).toEqual([]);
    await liveCard(page).screenshot({ path: 'docs/live/watch.png' });
    expect(tab.problems).toEqual([]);
  });

  it('fills its frame with the browser’s window, not the black screen around it', async () => {
    const page = tab.page;
    await page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
    const frame = page.getByRole('region', { name: `The browser of ${WORKSPACE}` });
    // The login page is white; the window the workspace opened is 1280 × 900.
    const outer = await expectWindowFillsFrame(page, frame, page.locator('.screen canvas'), {
      width: 1280,
      height: 900,
    });
    // As wide as the card lets it be.
    expect(outer.width).toBeGreaterThan(600);
    expect(tab.problems).toEqual([]);
  });

  it('refuses the ticket the page used, when it is used again', async () => {
    const used = sockets[0]!;
    const outcome = await tab.page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(url);
          socket.onopen = () => resolve('opened');
          socket.onclose = () => resolve('refused');
        }),
      used,
    );
    expect(outcome).toBe('refused');
    // Still one tunnel: the page's own.
    expect(running.server.liveView.tunnels.of(WORKSPACE)).toHaveLength(1);
  });

  it('says why when the tunnel drops, and reconnects with a new ticket', async () => {
    const page = tab.page;
    const [tunnel] = running.server.liveView.tunnels.of(WORKSPACE);
    tunnel!.close(1011, "The browser's VNC connection ended; reconnect to watch again.");
    await page.locator('[data-connection="disconnected"]').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain(
      "The browser's VNC connection ended; reconnect to watch again.",
    );
    expect(await page.getByRole('button', { name: 'Control', exact: true }).isDisabled()).toBe(true);
    const before = sockets.length;
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
    expect(sockets).toHaveLength(before + 1);
    expect(sockets.at(-1)).not.toBe(sockets[0]);
    await expect.poll(() => running.server.liveView.tunnels.of(WORKSPACE).length).toBe(1);
    expect(await page.locator('.screen canvas').count(), 'one picture, not two').toBe(1);
  });

  it('takes Control: the picture takes input, agents get a 409 naming await_control, reads answer', async () => {
    const page = tab.page;
    await page.getByLabel('Your name, as agents are told').fill('Kelly');
    await page.getByRole('button', { name: 'Control', exact: true }).click();
    await page.locator('[data-control="held"]').waitFor();
    expect(await page.getByText(/You have control since \d\d:\d\d UTC/).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Control', exact: true }).getAttribute('aria-pressed')).toBe('true');
    const episode = await running.server.liveView.controls.episode(WORKSPACE);
    expect(episode).toMatchObject({ state: 'held', who: 'Kelly' });

    const refused = await rest(running.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, agent);
    expect(refused.status).toBe(409);
    expect((refused.body.error as { message: string }).message).toMatch(
      /^Kelly has control of this browser since \d\d:\d\d UTC\. Call await_control \(POST \/browser\/await-control\)/,
    );
    const read = await rest(running.url, '/browser/extract', {}, agent);
    expect(read.status).toBe(200);
    expect(read.body.control).toMatchObject({ state: 'held', who: 'Kelly' });

    // Holding: a click on the picture reaches the browser, and Paste types into the focused field.
    await clickInPicture(page, page.locator('.screen canvas'), inBrowser, '#email');
    await expect.poll(focusedId, { timeout: 10_000 }).toBe('email');
    await page.getByRole('button', { name: 'Paste…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Paste into the browser' });
    await dialog.getByLabel('Text to type').fill('Kelly.Doe@example.test');
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Type it' }).click();
    await expect
      .poll(() => inBrowser<string>('return document.getElementById("email").value'), { timeout: 10_000 })
      .toBe('Kelly.Doe@example.test');
    expect(await page.getByText("Typed 22 characters into the browser's focused field.").isVisible()).toBe(true);

    // From the keyboard: the picture takes the keys, and F8 gives them back to the page.
    await page.getByRole('button', { name: 'Type in the browser' }).click();
    await page.keyboard.type('!');
    await expect
      .poll(() => inBrowser<string>('return document.getElementById("email").value'), { timeout: 10_000 })
      .toBe('Kelly.Doe@example.test!');
    await page.keyboard.press('F8');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('live-hand-back');
    expect(await accessibilityViolations(page)).toEqual([]);
    await liveCard(page).screenshot({ path: 'docs/live/control.png' });
  });

  it('hands back: agents carry on, and the picture is view only again', async () => {
    const page = tab.page;
    await page.getByRole('button', { name: 'Hand back' }).click();
    await page.locator('[data-control="watch"]').waitFor();
    expect(await running.server.liveView.controls.episode(WORKSPACE)).toBeUndefined();
    const navigated = await rest(running.url, '/browser/navigate', { url: `${siteUrl}/login.html` }, agent);
    expect(navigated.status, JSON.stringify(navigated.body)).toBe(200);
    expect(navigated.body.control).toMatchObject({ state: 'handed_back' });
    await clickInPicture(page, page.locator('.screen canvas'), inBrowser, '#email');
    expect(await focusedId()).not.toBe('email');
    expect(tab.problems).toEqual([]);
  });

  it('while an agent’s call runs, Control is requested, then held when the call ends', async () => {
    const page = tab.page;
    const slow = await callHeldOpen(running.url, agent, 3000);
    try {
      await page.getByRole('button', { name: 'Control', exact: true }).click();
      await page.getByText("Control requested: waiting for the agent's call to finish.").waitFor();
      expect(await page.getByRole('button', { name: 'Paste…' }).isDisabled()).toBe(true);
      expect(await page.locator('.screen.held').count(), 'the picture stays view only').toBe(0);
      const finished = await slow.answer;
      expect(finished.body.control).toMatchObject({ state: 'requested', who: 'Kelly' });
      await page.locator('[data-control="held"]').waitFor({ timeout: 15_000 });
      expect(await page.getByRole('button', { name: 'Paste…' }).isDisabled()).toBe(false);
      await page.getByRole('button', { name: 'Hand back' }).click();
      await page.locator('[data-control="watch"]').waitFor();
    } finally {
      await slow.close();
    }
  });

  it('withdraws its Control when the tab closes', async () => {
    // A second tab signs in by itself: the token is kept per tab (sessionStorage).
    const other = await openTab(browser, `${running.url}/admin/#/workspaces/${WORKSPACE}/live`);
    await signIn(other, ADMIN);
    await other.page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
    await other.page.getByRole('button', { name: 'Control', exact: true }).click();
    await other.page.locator('[data-control="held"]').waitFor();
    expect(await running.server.liveView.controls.episode(WORKSPACE)).toMatchObject({ state: 'held' });
    await other.page.close({ runBeforeUnload: true });
    await expect.poll(() => running.server.liveView.controls.episode(WORKSPACE)).toBeUndefined();
    expect((await rest(running.url, '/browser/extract', {}, agent)).status).toBe(200);
  });

  it('says so in words when there is nothing to watch', async () => {
    const page = tab.page;
    // A workspace the server knows, whose browser has gone (as after end_browser).
    await running.server.store.put('named:ui-live-none', {
      browser: 'chrome',
      window: { width: 1280, height: 800 },
      url: `${siteUrl}/login.html`,
      touchedAt: new Date().toISOString(),
    });
    await page.goto(`${running.url}/admin/#/workspaces/ui-live-none/live`);
    await page.getByText('Workspace ui-live-none has no browser now; one opens with its next call').waitFor();
    expect(await page.locator('.screen canvas').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Control', exact: true }).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: 'docs/live/no-browser.png' });

    // A browser on a slot without VNC: its record without se:vnc, as a headless slot's is.
    const record = await running.server.store.get(`named:${WORKSPACE}`);
    const { 'se:vnc': _vnc, ...headless } = record!.capabilities ?? {};
    await running.server.store.put('named:ui-live-headless', { ...record!, capabilities: headless });
    try {
      await page.goto(`${running.url}/admin/#/workspaces/ui-live-headless/live`);
      await page.getByText("This workspace's browser runs on a slot without VNC").waitFor();
      expect(await page.locator('.screen canvas').count()).toBe(0);
    } finally {
      await running.server.store.delete('named:ui-live-headless');
    }
    expect(tab.problems).toEqual([]);
  });
});
