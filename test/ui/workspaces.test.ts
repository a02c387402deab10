import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startGridProxy } from '../helpers/grid-proxy.js';
import { gridIdOf, gridHas, rest, startServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type AdminTab, type PageBrowser } from './browser.js';

const TOKEN = 'admin-list-token-51be';
let running: RunningServer;
let browser: PageBrowser;
let dataDir: string;
let tab: AdminTab;

const as = (workspace: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace });
const record = (url: string) => ({
  browser: 'chrome' as const,
  window: { width: 1280, height: 800 },
  url,
  touchedAt: new Date().toISOString(),
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'admin-list-'));
  [running, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: dataDir }),
    launchBrowser(),
  ]);
  // A page can make its own URL anything; only http(s) may become a link on the admin page.
  await running.server.store.put('named:ui-script-url', record('javascript:alert(document.cookie)'));
  tab = await openTab(browser, `${running.url}/admin/`);
  await signIn(tab, TOKEN);
});

afterAll(async () => {
  await Promise.all([browser?.close(), running?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

const rowOf = (name: string) => tab.page.getByRole('row').filter({ has: tab.page.getByRole('link', { name }) });

describe('the workspaces list', () => {
  it('shows each workspace, links only http(s) pages, filters, and updates while open', async () => {
    const page = tab.page;
    await rowOf('ui-script-url').waitFor();
    const scriptRow = rowOf('ui-script-url');
    expect(await scriptRow.getByText('javascript:alert(document.cookie)').isVisible()).toBe(true);
    expect(await scriptRow.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await scriptRow.getByText('no browser').isVisible()).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);

    // A workspace that appears while the page is open shows up by itself.
    const saved = await fetch(`${running.url}/flows/late-flow`, {
      method: 'PUT',
      headers: { ...as('ui-late'), 'content-type': 'application/yaml' },
      body: 'description: made while the page was open\nsteps:\n  - tool: navigate\n    args: {url: "https://example.test/"}\n',
    });
    expect(saved.status, await saved.text()).toBe(200);
    await rowOf('ui-late').waitFor({ timeout: 15_000 });
    expect(await rowOf('ui-late').getByText('1 flow').isVisible()).toBe(true);

    await page.getByLabel('Filter').fill('late');
    await expect.poll(() => page.getByRole('row').count()).toBe(2); // the header and ui-late
    await page.getByLabel('Filter').fill('');
    expect(tab.problems).toEqual([]);
  });

  it('says clearly when the hash names no valid workspace', async () => {
    await tab.page.goto(`${running.url}/admin/#/workspaces/bad%20name!`);
    await expect
      .poll(() => tab.page.getByRole('alert').textContent())
      .toContain('“bad name!” is not a workspace name. A workspace name is 1-64 characters');
    await tab.page.getByRole('link', { name: 'Back to the workspaces' }).click();
    await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  });
});

describe("a workspace's disk", () => {
  it('shows its use against WORKSPACE_DISK_QUOTA, and says when it is full', async () => {
    const quotaDir = await mkdtemp(join(tmpdir(), 'admin-quota-'));
    const small = await startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: quotaDir, WORKSPACE_DISK_QUOTA: '1' });
    const quotaTab = await openTab(browser, `${small.url}/admin/`);
    try {
      // Files as the store keeps them: a quarter of the quota in one, the whole of it in the other.
      for (const [workspace, size] of [
        ['ui-quarter', 256 * 1024],
        ['ui-full', 1024 * 1024],
      ] as const) {
        await mkdir(join(quotaDir, workspace, 'files'), { recursive: true });
        await writeFile(join(quotaDir, workspace, 'files', 'data.bin'), Buffer.alloc(size));
      }
      await signIn(quotaTab, TOKEN);
      const page = quotaTab.page;
      const quarter = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'ui-quarter' }) });
      await quarter.getByText('256 KB of 1.0 MB (25%)').waitFor();
      const meter = quarter.getByRole('meter', { name: 'Disk use of ui-quarter' });
      expect(await meter.evaluate((element) => (element as HTMLMeterElement).value)).toBe(256 * 1024);
      const full = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'ui-full' }) });
      await full.getByText('1.0 MB of 1.0 MB (100%): full, saves are refused').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: join(tmpdir(), 'admin-disk-quota.png') });
      expect(quotaTab.problems).toEqual([]);
    } finally {
      await quotaTab.page.close();
      await small.close();
      await rm(quotaDir, { recursive: true, force: true });
    }
  });
});

describe('a workspace page', () => {
  it('shows the browser blocks, keeps the tab in the hash, and ends the browser after a confirm', async () => {
    const page = tab.page;
    const workspace = 'ui-browser';
    try {
      const opened = await rest(
        running.url,
        '/browser/navigate',
        { url: `${inject('siteUrl')}/table.html` },
        as(workspace),
      );
      expect(opened.status).toBe(200);
      const gridId = await gridIdOf(running, workspace);
      await page.goto(`${running.url}/admin/#/workspaces`);
      const row = rowOf(workspace);
      await row.getByText('live').waitFor({ timeout: 15_000 });
      // The last page is a link, opening outside the admin page.
      expect(await row.getByRole('link', { name: `${inject('siteUrl')}/table.html` }).getAttribute('rel')).toContain(
        'noopener',
      );
      await page.getByRole('link', { name: workspace, exact: true }).click();
      await page.getByRole('heading', { name: workspace, level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Session' }).waitFor();
      expect(await page.getByText('chrome', { exact: true }).isVisible()).toBe(true);
      expect(await page.getByText(/^\d+ × \d+$/).isVisible()).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);

      // The tab is in the hash: a reload lands on the same tab.
      await page.getByRole('link', { name: 'Flows', exact: true }).click();
      await expect.poll(() => new URL(page.url()).hash).toBe(`#/workspaces/${workspace}/flows`);
      await page.reload();
      await expect
        .poll(() => page.getByRole('link', { name: 'Flows', exact: true }).getAttribute('aria-current'))
        .toBe('page');
      await page.getByRole('link', { name: 'Files', exact: true }).click();
      await expect.poll(() => new URL(page.url()).hash).toBe(`#/workspaces/${workspace}`);

      // End browser asks first; Cancel leaves it running, and focus goes back to the button.
      const end = page.getByRole('button', { name: 'End browser' });
      await end.click();
      const dialog = page.getByRole('dialog', { name: 'End browser' });
      expect(await dialog.getAttribute('aria-modal')).toBe('true');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('End browser');
      expect(await gridHas(String(gridId))).toBe(true);
      const version = String((await page.getByText(/^\d+\.\d+\.\d+\.\d+$/).textContent()) ?? '');
      await end.click();
      await dialog.getByRole('button', { name: 'End browser' }).click();
      await expect
        .poll(() => page.getByText('no browser', { exact: true }).isVisible(), { timeout: 15_000 })
        .toBe(true);
      expect(await gridHas(String(gridId))).toBe(false);
      // Ended, nothing of that browser is left on the page: what shows is that there is none.
      await page.getByText('No browser. The next call that needs one opens chrome at 1280 × 900.').waitFor();
      expect(await page.getByRole('heading', { name: 'Session' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Browser', exact: true }).count()).toBe(0);
      expect(await page.getByText('Started', { exact: true }).count()).toBe(0);
      const shown = await page.locator('main').textContent();
      expect(shown).not.toContain(version);
      expect(shown).not.toContain(String(gridId));
      expect(tab.problems).toEqual([]);
    } finally {
      await rest(running.url, '/browser/end-browser', {}, as(workspace));
    }
  });

  it('says there is no browser once the Grid ended it behind the workspace’s back', async () => {
    const page = tab.page;
    const workspace = 'ui-reaped';
    const opened = await rest(
      running.url,
      '/browser/navigate',
      { url: `${inject('siteUrl')}/table.html` },
      as(workspace),
    );
    expect(opened.status).toBe(200);
    const gridId = String(await gridIdOf(running, workspace));
    await page.goto(`${running.url}/admin/#/workspaces/${workspace}`);
    await page.getByRole('heading', { name: 'Session' }).waitFor();
    const version = String((await page.getByText(/^\d+\.\d+\.\d+\.\d+$/).textContent()) ?? '');

    // The Grid ends it (an idle timeout, a crash): the workspace's record still names it.
    await running.server.grid.end(gridId);
    await expect.poll(() => gridHas(gridId), { timeout: 10_000 }).toBe(false);
    await page
      .getByText(
        'No browser: the Grid ended the one this workspace had (idle too long, or it crashed). The next call that needs one opens chrome at 1280 × 900.',
      )
      .waitFor({ timeout: 15_000 });
    expect(await page.getByText('reaped', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Session' }).count()).toBe(0);
    const shown = await page.locator('main').textContent();
    expect(shown).not.toContain(version);
    expect(shown).not.toContain(gridId);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(tab.problems).toEqual([]);
  });
});

describe('polling the list', () => {
  it("answers 304 while nothing changed, never asks an idle browser's node, and still updates", async () => {
    const proxy = await startGridProxy(inject('gridUrl'));
    const watched = await startServer({ MCP_AUTH_TOKEN: TOKEN }, proxy.url);
    const workspace = 'ui-poll';
    const page = await browser.browser.newPage();
    const listing = (etag?: string | null) =>
      fetch(`${watched.url}/admin/api/workspaces`, {
        headers: { authorization: `Bearer ${TOKEN}`, ...(etag ? { 'if-none-match': etag } : {}) },
      });
    // Asking a browser's node for its downloads is a use of that browser: it keeps it from idling out.
    const askedNode = () => proxy.requests.filter((r) => r.includes('/se/files')).length;
    try {
      expect(
        (await rest(watched.url, '/browser/navigate', { url: `${inject('siteUrl')}/download.html` }, as(workspace)))
          .status,
      ).toBe(200);
      // Its last call was two minutes ago: an idle browser.
      const record = await watched.server.store.get(`named:${workspace}`);
      expect(record?.gridId).toBeTruthy();
      await watched.server.store.put(`named:${workspace}`, {
        ...record!,
        touchedAt: new Date(Date.now() - 120_000).toISOString(),
      });
      const first = await listing();
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-store');
      const counted = askedNode();
      expect(counted).toBe(1);
      for (let i = 0; i < 3; i += 1) {
        const again = await listing(first.headers.get('etag'));
        expect(again.status).toBe(304);
        expect(await again.text()).toBe('');
      }
      expect(askedNode()).toBe(counted);

      // The page polls with the ETag, and a change still shows without a reload.
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname.endsWith('/admin/api/workspaces')) {
          statuses.push(response.status());
        }
      });
      await page.goto(`${watched.url}/admin/`);
      await page.getByLabel('Admin token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: workspace }) });
      await row.getByText('live').waitFor();
      await expect.poll(() => statuses.includes(304), { timeout: 15_000 }).toBe(true);
      expect(askedNode()).toBe(counted);
      const clicked = await rest(
        watched.url,
        '/browser/interact',
        { action: 'click', selector: { css: '#download' } },
        as(workspace),
      );
      expect(clicked.status).toBe(200);
      await row.getByText('1 download').waitFor({ timeout: 20_000 });
      expect(askedNode()).toBeGreaterThan(counted);
    } finally {
      await page.close();
      await rest(watched.url, '/browser/end-browser', {}, as(workspace));
      await watched.close();
      await proxy.close();
    }
  });
});

describe('deleting a workspace', () => {
  it('names what will be lost, with sizes, and after the confirm the row and the browser are gone', async () => {
    const page = tab.page;
    const workspace = 'ui-doomed';
    const flow =
      'description: goes with its workspace\nsteps:\n  - tool: navigate\n    args: {url: "https://example.test/"}\n';
    try {
      const site = inject('siteUrl');
      expect((await rest(running.url, '/browser/navigate', { url: `${site}/table.html` }, as(workspace))).status).toBe(
        200,
      );
      const shot = await rest(running.url, '/browser/screenshot', { save: true, filename: 'doomed' }, as(workspace));
      expect(shot.status).toBe(200);
      const saved = await fetch(`${running.url}/flows/doomed-flow`, {
        method: 'PUT',
        headers: { ...as(workspace), 'content-type': 'application/yaml' },
        body: flow,
      });
      expect(saved.status, await saved.text()).toBe(200);
      const gridId = await gridIdOf(running, workspace);

      await page.goto(`${running.url}/admin/#/workspaces`);
      const row = rowOf(workspace);
      await row.getByText('1 flow').waitFor({ timeout: 15_000 });
      expect(await row.getByText(`1 flow (${Buffer.byteLength(flow)} B)`).isVisible()).toBe(true);

      // Cancel first: nothing goes.
      const remove = row.getByRole('button', { name: `Delete workspace ${workspace}` });
      await remove.click();
      const dialog = page.getByRole('dialog', { name: `Delete workspace ${workspace}` });
      expect(await dialog.getAttribute('aria-modal')).toBe('true');
      const lost = await dialog.getByRole('listitem').allTextContents();
      expect(lost).toEqual([
        expect.stringMatching(/^1 screenshot \(\d+ KB\)$/),
        `1 flow (${Buffer.byteLength(flow)} B)`,
      ]);
      expect(await dialog.textContent()).toContain('Its browser ends');
      expect(await accessibilityViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      expect(await gridHas(String(gridId))).toBe(true);

      await remove.click();
      await dialog.getByRole('button', { name: 'Delete workspace' }).click();
      await expect.poll(() => rowOf(workspace).count(), { timeout: 15_000 }).toBe(0);
      // Gone from the server too, not only from the page, and it stays gone over the next polls.
      const listed = await fetch(`${running.url}/admin/api/workspaces`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(JSON.stringify(await listed.json())).not.toContain(workspace);
      expect(await gridHas(String(gridId))).toBe(false);
      await page.waitForTimeout(3500);
      expect(await rowOf(workspace).count()).toBe(0);
      expect(tab.problems).toEqual([]);
    } finally {
      await rest(running.url, '/browser/end-browser', {}, as(workspace));
    }
  });

  it('offers no delete for the shared global library', async () => {
    const saved = await fetch(`${running.url}/admin/api/workspaces/global/flows/shared-one`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/yaml' },
      body: 'steps:\n  - tool: navigate\n    args: {url: "https://example.test/"}\n',
    });
    expect(saved.status, await saved.text()).toBe(200);
    await tab.page.goto(`${running.url}/admin/#/workspaces`);
    const row = rowOf('🌐 global');
    await row.waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
  });
});
