import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openWatchable, rest, startServer, type RunningServer } from '../helpers/server.js';
import { connectAppClient, renderApp, type McpAppClient, type RenderedApp } from './app-host.js';
import { launchBrowser, type PageBrowser } from './browser.js';
import { clickInPicture, expectWindowFillsFrame, inWorkspaceBrowser, type InBrowser } from './live-picture.js';

const TOKEN = 'apps-live-token-7c1d';
/** The host's own token (TOKENS_FILE control: true): with CONTROL_BY=apps its app may take Control. */
const HOST_TOKEN = 'apps-live-host-token-9e2f';
let tokensDir: string;
const WORKSPACE = 'ui-apps-live';
let running: RunningServer;
let browser: PageBrowser;
let host: McpAppClient;
let app: RenderedApp;
let inBrowser: InBrowser;

const asWorkspace = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };
/**
 * Time for the agent's await_control to be waiting before the person hands back: no surface
 * shows a waiting call, and one that came after would be answered the hand-back all the same.
 */
const AWAIT_IN_FLIGHT_MS = 500;

const heard = async () => {
  const answer = await rest(
    running.url,
    '/browser/extract',
    { selector: { css: '#heard li' }, all: true },
    asWorkspace,
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.values as string[];
};

/** How many distinct colours a 64×64 grid of the screen's canvas holds: a blank screen has one or two. */
const colours = () =>
  app.frame.locator('.screen canvas').evaluate((canvas: HTMLCanvasElement) => {
    const { width, height } = canvas;
    const data = canvas.getContext('2d')?.getImageData(0, 0, width, height).data;
    const seen = new Set<number>();
    for (let y = 0; data && y < height; y += Math.max(1, Math.floor(height / 64))) {
      for (let x = 0; x < width; x += Math.max(1, Math.floor(width / 64))) {
        const i = (y * width + x) * 4;
        seen.add(((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0));
      }
    }
    return width > 100 && height > 100 ? seen.size : 0;
  });

beforeAll(async () => {
  tokensDir = await mkdtemp(join(tmpdir(), 'sf-apps-live-'));
  const tokensFile = join(tokensDir, 'tokens.yaml');
  await writeFile(
    tokensFile,
    `tokens:\n  - {name: agent, token: ${TOKEN}, workspaces: ["ui-*"]}\n  - {name: host, token: ${HOST_TOKEN}, workspaces: ["ui-*"], control: true}\n`,
  );
  [running, browser] = await Promise.all([
    startServer({ TOKENS_FILE: tokensFile, CONTROL_BY: 'apps', LIVE_VIEW: 'prefer' }),
    launchBrowser(),
  ]);
  inBrowser = inWorkspaceBrowser(running, inject('gridUrl'), WORKSPACE);
  await openWatchable(running, WORKSPACE, asWorkspace, {
    first: { path: '/browser/navigate', body: { url: `${inject('siteUrl')}/input-log.html` } },
  });
  host = await connectAppClient(running.url, {
    workspace: WORKSPACE,
    headers: { authorization: `Bearer ${HOST_TOKEN}` },
  });
  app = await renderApp(browser, host, 'watch');
  // A chat column's width, as hosts frame an app inline: the picture's height follows the width.
  await app.page.setViewportSize({ width: 800, height: 860 });
}, 240_000);

afterAll(async () => {
  await app?.close();
  await host?.close();
  await rest(running.url, '/browser/end-browser', {}, asWorkspace).catch(() => undefined);
  await Promise.all([browser?.close(), running?.close()]);
  await rm(tokensDir, { recursive: true, force: true });
});

describe('watch as an MCP App', () => {
  it('shows the workspace’s real browser screen, under a CSP that reaches only this server', async () => {
    await app.frame.getByText('Watching').waitFor({ timeout: 30_000 });
    await expect.poll(colours, { timeout: 20_000 }).toBeGreaterThan(8);
    expect(app.csp).toContain(`connect-src ${running.url.replace(/^http/, 'ws')};`);
    expect(app.problems).toEqual([]);
    await app.page.screenshot({ path: 'docs/apps/live.png' });
  });

  it('fills its frame with the browser’s window, not the black screen around it', async () => {
    await app.frame.getByText('Watching').waitFor({ timeout: 30_000 });
    // The input log is white; the window the workspace opened is 1280 × 900.
    await expectWindowFillsFrame(app.page, app.frame.locator('.screen'), app.frame.locator('.screen canvas'), {
      width: 1280,
      height: 900,
    });
    expect(app.problems).toEqual([]);
  });

  it('Take control: only then the person’s keys reach the page, the agent is refused; Hand back ends await_control', async () => {
    // Typed while watching: the tunnel drops these. Its connection keeps order, so had any got
    // through it would be heard before the keys typed under Control below.
    await app.frame.locator('.screen canvas').click();
    await app.page.keyboard.type('abc');
    await app.frame.getByRole('button', { name: 'Take control' }).click();
    await app.frame.getByText('You have control').waitFor();
    expect(app.calls.map((c) => c.name)).toEqual(['live_ticket', 'take_control']);
    // The click lands where the person makes it: on the page's heading, as the picture shows it.
    await inBrowser("addEventListener('mousedown', (e) => { window.downAt = [e.clientX, e.clientY]; }, true)");
    const aimed = await clickInPicture(app.page, app.frame.locator('.screen canvas'), inBrowser, 'h1');
    await app.page.keyboard.type('xy');
    await expect.poll(heard, { timeout: 10_000 }).toEqual(['button 0', 'key x', 'key y']);
    const [x, y] = await inBrowser<number[]>('return window.downAt');
    expect(Math.abs(x! - aimed.x), `${x} for ${aimed.x}`).toBeLessThanOrEqual(3);
    expect(Math.abs(y! - aimed.y), `${y} for ${aimed.y}`).toBeLessThanOrEqual(3);

    const navigate = await rest(
      running.url,
      '/browser/navigate',
      { url: `${inject('siteUrl')}/table.html` },
      asWorkspace,
    );
    expect(navigate.status).toBe(409);
    expect((navigate.body.error as { message: string }).message).toMatch(
      /^the person at the MCP client has control of this browser/,
    );
    const waiting = rest(running.url, '/browser/await-control', {}, asWorkspace);
    await new Promise((resolve) => setTimeout(resolve, AWAIT_IN_FLIGHT_MS));
    await app.frame.getByRole('button', { name: 'Hand back' }).click();
    const awaited = await waiting;
    expect(awaited.status).toBe(200);
    expect(awaited.body).toMatchObject({ handed_back: true, who: 'the person at the MCP client' });
    expect(String(awaited.body.outline)).not.toBe('');
    await app.frame.getByRole('button', { name: 'Take control' }).waitFor();
  });

  it('offers no Take control to a client on the agent’s token: it watches, and says where a person takes control', async () => {
    const mimic = await connectAppClient(running.url, {
      workspace: WORKSPACE,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const watching = await renderApp(browser, mimic, 'watch');
    try {
      await watching.frame.getByText('Watching').waitFor({ timeout: 30_000 });
      await watching.frame
        .getByRole('note')
        .getByText(/its app cannot take Control; take it on the admin page/)
        .waitFor();
      expect(await watching.frame.getByRole('button', { name: 'Take control' }).count()).toBe(0);
      await watching.page.screenshot({ path: 'docs/apps/live-watch-only.png' });
    } finally {
      await watching.close();
      await mimic.close();
    }
  });
});
