import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rest, startServer, type RunningServer } from '../helpers/server.js';
import { connectAppClient, renderApp, type McpAppClient } from './app-host.js';
import { launchBrowser, type PageBrowser } from './browser.js';

const TOKEN = 'apps-files-token-5e0a';
const WORKSPACE = 'ui-apps-files';
let running: RunningServer;
let browser: PageBrowser;
let host: McpAppClient;
let dataDir: string;

const asWorkspace = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'apps-files-'));
  [running, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: dataDir }),
    launchBrowser(),
  ]);
  host = await connectAppClient(running.url, {
    workspace: WORKSPACE,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
});

afterAll(async () => {
  await host?.close();
  await rest(running.url, '/browser/end-browser', {}, asWorkspace).catch(() => undefined);
  await Promise.all([browser?.close(), running?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('workspace_files as an MCP App', () => {
  it('shows the real screenshot, keeps it through the host, and reaches nothing itself', async () => {
    expect(
      (await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html` }, asWorkspace)).status,
    ).toBe(200);
    const shot = await rest(running.url, '/browser/screenshot', { save: true, filename: 'table' }, asWorkspace);
    expect(shot.status, JSON.stringify(shot.body)).toBe(200);

    const app = await renderApp(browser, host, 'workspace_files');
    try {
      const frame = app.frame;
      const shots = frame.getByRole('list', { name: 'screenshots' });
      await shots.getByRole('listitem').first().waitFor();
      expect(await shots.locator('.name').allTextContents()).toEqual(['table.png']);
      // The thumbnail is the screenshot's own bytes, read through the host (a data: URL), and it drew.
      const img = shots.locator('img');
      await expect.poll(() => img.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(100);
      const size = (await shots.locator('.meta').last().textContent()) ?? '';
      expect(size).toMatch(/\d+(\.\d+)? (KB|MB|B)/);
      expect(await frame.getByRole('heading', { name: /Downloads/ }).isVisible()).toBe(true);
      expect(await frame.getByText('Nothing here yet').isVisible()).toBe(true);
      // No delete: that is a person's act in the admin page, not the caller's.
      expect(await frame.getByRole('button', { name: /^Delete / }).count()).toBe(0);

      // Keep: the host calls keep_file as the caller; a later workspace_files answer has it in Files.
      await frame.getByRole('button', { name: 'Keep table.png' }).click();
      const kept = frame.getByRole('list', { name: 'files' });
      await expect.poll(() => kept.locator('.name').allTextContents()).toEqual(['table.png']);
      await expect.poll(() => kept.locator('img').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
      expect(app.calls.map((c) => c.name)).toContain('keep_file');
      expect(app.calls.find((c) => c.name === 'keep_file')?.arguments).toEqual({
        uri: 'workspace://files/screenshots/table.png',
      });
      const later = await host.client.callTool({ name: 'workspace_files', arguments: {} });
      const names = (later.structuredContent as { files: { name: string }[] }).files.map((f) => f.name);
      expect(names).toEqual(['table.png']);
      await frame.getByRole('status').filter({ hasText: 'Kept table.png' }).waitFor();
      await app.page.screenshot({ path: 'docs/apps/files.png' });

      // Open: the host is asked to fetch the file by its uri, with the caller's own read.
      await frame.getByRole('button', { name: 'Open table.png' }).first().click();
      await expect.poll(() => app.downloads.length).toBe(1);
      expect(app.downloads[0]).toMatchObject({ type: 'resource_link', name: 'table.png' });

      // The CSP: nothing to connect to, neither the server itself nor any other origin.
      expect(app.csp).toContain("connect-src 'none'");
      for (const target of [`${running.url}/health`, 'http://example.invalid/']) {
        const said = await frame.evaluate(async (url) => {
          const violation = new Promise<string>((resolve) =>
            document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true }),
          );
          const fetched = await fetch(url).then(
            () => 'fetched',
            () => 'blocked',
          );
          return `${fetched} ${await violation}`;
        }, target);
        expect(said, target).toBe('blocked connect-src');
      }
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
    }
  }, 60_000);
});
