import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, startEmbeddedGrid, type EmbeddedGrid } from '../../src/embedded-grid/index.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type PageBrowser } from './browser.js';

const TOKEN = 'admin-grid-token-6e3b';
const WORKSPACE = 'ui-grid';
const as = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };
let shared: RunningServer;
let plain: RunningServer;
let down: RunningServer;
let plainGrid: EmbeddedGrid;
let browser: PageBrowser;

beforeAll(async () => {
  // A Grid of its own with no watchable slot (the shared one has one): a real Grid without VNC, one
  // node running one browser at a time of the two it offers.
  plainGrid = await startEmbeddedGrid({ maxSessions: 1, liveViews: 0, loopbackPorts: [FIXTURE_PORTS] });
  [shared, plain, down, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN }),
    startServer({ MCP_AUTH_TOKEN: TOKEN }, plainGrid.url),
    // Nothing listens there: a Grid that is down.
    freePort().then((port) => startServer({ MCP_AUTH_TOKEN: TOKEN }, `http://127.0.0.1:${port}`)),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), shared?.close(), plain?.close(), down?.close()]);
  await plainGrid?.stop();
});

describe('the Grid view', () => {
  it('shows the nodes, their slots and the session each holds, with the workspace that holds it', async () => {
    const tab = await openTab(browser, `${shared.url}/admin/#/grid`);
    const page = tab.page;
    try {
      expect((await rest(shared.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html` }, as)).status).toBe(
        200,
      );
      await signIn(tab, TOKEN);
      const holder = page.getByRole('row').filter({ has: page.getByRole('link', { name: WORKSPACE, exact: true }) });
      await holder.waitFor();
      expect(await holder.getByRole('cell').nth(1).textContent()).toContain('chrome');
      expect(await page.getByRole('heading', { name: 'Node 1', level: 2 }).isVisible()).toBe(true);
      // The shared Grid has a watchable slot of each browser beside the headless ones, and says so.
      // A slot is a row of the table, wherever the page counts slots; what the node caps is browsers.
      const node = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Node 1' }) });
      const rows = (await node.getByRole('row').count()) - 1;
      expect(rows).toBe(10);
      await page
        .getByText(`2 of the ${rows} slots below offer VNC: a browser there can be watched in the Live tab.`)
        .waitFor();
      expect(
        await node.getByText(`${rows} slots; it runs at most 6 browsers at once, of any kind below.`).isVisible(),
      ).toBe(true);
      // Other files' browsers share this Grid: how many run is theirs to say.
      expect(await page.getByText(/^\d+ browsers? running, at most 6 at once$/).isVisible()).toBe(true);
      expect(await page.getByRole('cell', { name: 'VNC', exact: true }).count()).toBe(2);
      // A Grid id is for one workspace's own page; the Grid view never shows one.
      const html = await page.content();
      const gridId = (await shared.server.store.get(`named:${WORKSPACE}`))?.gridId;
      expect(gridId).toBeTruthy();
      expect(html).not.toContain(String(gridId));
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: 'docs/admin/grid.png', fullPage: true });

      // The workspace link is reachable and works from the keyboard.
      await holder.getByRole('link').focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: WORKSPACE, level: 1 }).waitFor();

      // Ended, its slot is free again, without a reload (the view polls).
      await rest(shared.url, '/browser/end-browser', {}, as);
      await page.goto(`${shared.url}/admin/#/grid`);
      await page.getByRole('heading', { name: 'Node 1', level: 2 }).waitFor();
      await expect
        .poll(() => page.getByRole('link', { name: WORKSPACE, exact: true }).count(), { timeout: 15_000 })
        .toBe(0);
      expect(tab.problems).toEqual([]);
    } finally {
      await rest(shared.url, '/browser/end-browser', {}, as);
      await page.close();
    }
  });

  it('says so when no slot of the Grid offers VNC', async () => {
    const tab = await openTab(browser, `${plain.url}/admin/#/grid`);
    try {
      await signIn(tab, TOKEN);
      await tab.page.getByText('No slot of this Grid offers VNC (se:vncEnabled)').waitFor();
      expect(await tab.page.getByRole('cell', { name: 'VNC', exact: true }).count()).toBe(0);
      expect(await accessibilityViolations(tab.page)).toEqual([]);
      expect(tab.problems).toEqual([]);
    } finally {
      await tab.page.close();
    }
  });

  it('lists the browsers the Grid has, and counts a node by how many it runs at once', async () => {
    expect(plainGrid.browsers).toEqual(['chrome', 'firefox']);
    const tab = await openTab(browser, `${plain.url}/admin/#/grid`);
    const page = tab.page;
    try {
      await signIn(tab, TOKEN);
      await page.getByText('offers chrome, firefox').waitFor();
      // The one-session node lists a slot per browser, yet has one slot in all, as /metrics says.
      const node = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Node 1' }) });
      expect(
        await node
          .getByRole('row')
          .filter({ has: page.getByRole('cell', { name: 'free' }) })
          .count(),
      ).toBe(2);
      expect(await node.getByText('2 slots; it runs at most 1 browser at once, of any kind below.').isVisible()).toBe(
        true,
      );
      expect(await page.getByText('0 browsers running, at most 1 at once').isVisible()).toBe(true);
      const metrics = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await metrics.text();
      expect(text).toMatch(/selenium_flow_grid_slots\{state="free"\} 1\n/);
      expect(text).toMatch(/selenium_flow_grid_slots\{state="used"\} 0\n/);

      // A Firefox browser takes the node's one slot: nothing is free, of either browser.
      const ws = { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'ui-grid-firefox' };
      try {
        expect((await rest(plain.url, '/browser/open-session', { browser: 'firefox' }, ws)).status).toBe(200);
        await page.getByText('1 browser running, at most 1 at once').waitFor({ timeout: 15_000 });
        const holder = node.getByRole('row').filter({ has: page.getByRole('link', { name: 'ui-grid-firefox' }) });
        expect(await holder.getByRole('cell').nth(1).textContent()).toContain('firefox');
      } finally {
        await rest(plain.url, '/browser/end-browser', {}, ws);
      }
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(tab.problems).toEqual([]);
    } finally {
      await tab.page.close();
    }
  });

  it('says so when the Grid is down, on the Grid view and the workspaces list', async () => {
    const tab = await openTab(browser, `${down.url}/admin/#/grid`);
    const page = tab.page;
    try {
      await signIn(tab, TOKEN);
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: 15_000 })
        .toContain('The Grid does not answer at its address (GRID_URL)');
      expect(await page.getByText('unreachable', { exact: true }).isVisible()).toBe(true);
      expect(await page.getByText(/running, at most/).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: 'docs/admin/grid-down.png' });
      await page.getByRole('link', { name: 'Workspaces', exact: true }).click();
      await page.getByText('The Grid does not answer, so browser states are unknown.').waitFor();
      expect(tab.problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
