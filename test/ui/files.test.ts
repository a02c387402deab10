import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rest, startServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type PageBrowser } from './browser.js';

const TOKEN = 'admin-files-token-77c1';
const WORKSPACE = 'ui-files';
let running: RunningServer;
let browser: PageBrowser;
let dataDir: string;

const asWorkspace = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'admin-files-'));
  [running, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: dataDir }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), running?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('the Files tab', () => {
  it('shows three rows newest first, steps a lightbox, keeps, clears and deletes', async () => {
    // The one Grid browser this file holds, ended in finally.
    try {
      expect(
        (await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html` }, asWorkspace)).status,
      ).toBe(200);
      for (const filename of ['shot-a', 'shot-b', 'shot-c']) {
        const shot = await rest(running.url, '/browser/screenshot', { save: true, filename }, asWorkspace);
        expect(shot.status, JSON.stringify(shot.body)).toBe(200);
      }
      const tab = await openTab(browser, `${running.url}/admin/#/workspaces/${WORKSPACE}`);
      const page = tab.page;
      await signIn(tab, TOKEN);
      const shots = page.getByRole('list', { name: 'screenshots' });
      await expect.poll(() => shots.getByRole('listitem').count()).toBe(3);
      expect(await shots.locator('.name').allTextContents()).toEqual(['shot-c.png', 'shot-b.png', 'shot-a.png']);
      await expect.poll(() => page.getByRole('list', { name: 'files' }).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);

      // The lightbox: opened by keyboard, steps with the arrows, stops at the ends.
      const opener = page.getByRole('button', { name: 'Open shot-c.png' });
      await opener.focus();
      await page.keyboard.press('Enter');
      const lightbox = page.getByRole('dialog', { name: 'shot-c.png' });
      await lightbox.waitFor();
      expect(await lightbox.getAttribute('aria-modal')).toBe('true');
      expect(await lightbox.getByText('1 / 3').isVisible()).toBe(true);
      expect(await lightbox.getByRole('button', { name: '‹ Prev' }).isDisabled()).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.getByRole('dialog', { name: 'shot-a.png' }).getByText('3 / 3').waitFor();
      expect(await page.getByRole('button', { name: 'Next ›' }).isDisabled()).toBe(true);
      await page.keyboard.press('ArrowRight');
      await page.getByRole('dialog', { name: 'shot-a.png' }).waitFor();
      await page.keyboard.press('ArrowLeft');
      const second = page.getByRole('dialog', { name: 'shot-b.png' });
      await second.getByText('2 / 3').waitFor();

      // Keep moves the screenshot into Files and the lightbox on to the next one.
      await second.getByRole('button', { name: '➕ Keep' }).click();
      await page.getByRole('dialog', { name: 'shot-a.png' }).getByText('2 / 2').waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      // Focus goes back to what opened it.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Open shot-c.png');
      await expect
        .poll(() => page.getByRole('list', { name: 'files' }).locator('.name').allTextContents())
        .toEqual(['shot-b.png']);

      // Clear screenshots asks first, naming what goes.
      await page.getByRole('button', { name: 'Clear screenshots' }).click();
      const confirm = page.getByRole('dialog', { name: 'Clear screenshots' });
      expect(await confirm.getByRole('listitem').allTextContents()).toEqual(['shot-c.png', 'shot-a.png']);
      expect(await accessibilityViolations(page)).toEqual([]);
      await confirm.getByRole('button', { name: 'Delete 2 screenshots' }).click();
      await page.getByText('No screenshots yet.').waitFor();
      expect(await page.getByRole('button', { name: 'Clear screenshots' }).isDisabled()).toBe(true);

      // A file in Files is deleted one at a time, after a confirm that Cancel backs out of.
      await page.getByRole('button', { name: 'Delete shot-b.png' }).click();
      await page.getByRole('dialog', { name: 'Delete a file' }).getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByRole('list', { name: 'files' }).locator('.name').allTextContents()).toEqual([
        'shot-b.png',
      ]);
      await page.getByRole('button', { name: 'Delete shot-b.png' }).click();
      await page.getByRole('dialog', { name: 'Delete a file' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Nothing here yet — prints land here, and anything you keep.').waitFor();
      expect(tab.problems).toEqual([]);
      await page.close();
    } finally {
      await rest(running.url, '/browser/end-browser', {}, asWorkspace);
    }
  });

  it('says which flow step made a file, linking to that step, and keeps saying it once kept', async () => {
    const flow = `description: screenshots the table
steps:
  - tool: navigate
    args: { url: "${inject('siteUrl')}/table.html" }
  - id: shot
    tool: screenshot
    args: { save: true, filename: by-flow }
  - tool: screenshot
    args: { save: true, filename: numbered }
`;
    try {
      const saved = await fetch(`${running.url}/flows/table-shots`, {
        method: 'PUT',
        headers: { ...asWorkspace, 'content-type': 'application/yaml' },
        body: flow,
      });
      expect(saved.status, await saved.text()).toBe(200);
      const run = await rest(running.url, '/flows/table-shots/run', { params: {} }, asWorkspace);
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      // And one by hand, which says nothing of a flow.
      expect(
        (await rest(running.url, '/browser/screenshot', { save: true, filename: 'by-hand' }, asWorkspace)).status,
      ).toBe(200);

      const tab = await openTab(browser, `${running.url}/admin/#/workspaces/${WORKSPACE}`);
      const page = tab.page;
      await signIn(tab, TOKEN);
      const shots = page.getByRole('list', { name: 'screenshots' });
      await shots.getByRole('listitem').nth(2).waitFor();
      expect(await shots.getByRole('listitem').count()).toBe(3);
      const tile = (name: string) => page.getByRole('listitem').filter({ hasText: name });
      expect(await tile('by-flow.png').getByRole('link').getAttribute('href')).toBe(
        `#/workspaces/${WORKSPACE}/flows/table-shots/steps/shot`,
      );
      expect(await tile('by-flow.png').textContent()).toContain('by flow table-shots · step shot');
      expect(await tile('numbered.png').textContent()).toContain('by flow table-shots · step 3');
      expect(await tile('by-hand.png').getByRole('link').count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: 'docs/admin/files.png' });

      // Kept, it says the same in Files.
      await page.getByRole('button', { name: 'Keep by-flow.png' }).click();
      const kept = page.getByRole('list', { name: 'files' }).getByRole('listitem').filter({ hasText: 'by-flow.png' });
      await kept.waitFor();
      expect(await kept.textContent()).toContain('by flow table-shots · step shot');

      // The link lands on the step, picked and focused, from the keyboard.
      await kept.getByRole('link').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => new URL(page.url()).hash).toBe(`#/workspaces/${WORKSPACE}/flows/table-shots/steps/shot`);
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('step-2');
      expect(await page.getByRole('button', { name: 'Step 2: screenshot shot' }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      expect(tab.problems).toEqual([]);
      await page.close();
    } finally {
      await rest(running.url, '/browser/end-browser', {}, asWorkspace);
    }
  });
});
