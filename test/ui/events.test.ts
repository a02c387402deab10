import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/embedded-grid/index.js';
import { loadConfig } from '../../src/config.js';
import { openServer, type HttpServer } from '../../src/server.js';
import { rm } from 'node:fs/promises';
import { secretsDir } from '../helpers/secrets.js';
import { rest } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type AdminTab, type PageBrowser } from './browser.js';

const TOKEN = 'admin-events-token-3c07';
const W = 'ui-events';
const site = inject('siteUrl');
let port: number;
let server: HttpServer | undefined;
let browser: PageBrowser;
let tab: AdminTab;
let secrets: string;

/** The server on one port, so it can go away and come back where the open page looks for it. */
async function serve(): Promise<void> {
  const config = loadConfig(
    {},
    { PORT: String(port), LOG_LEVEL: 'silent', LIVE_VIEW: 'off', MCP_AUTH_TOKEN: TOKEN, SECRETS_DIRS: secrets },
  );
  server = await openServer(config, inject('gridUrl'));
  await server.app.listen({ host: '127.0.0.1', port });
}
const base = () => `http://127.0.0.1:${port}`;
const agent = (path: string, body: unknown = {}) =>
  rest(base(), path, body, { authorization: `Bearer ${TOKEN}`, 'x-workspace': W });

beforeAll(async () => {
  port = await freePort();
  secrets = await secretsDir({
    elsewhere: { password: 'PLANTED-ui-events-pw', _allowed_urls: 'https://example.com\n' },
  });
  [, browser] = await Promise.all([serve(), launchBrowser()]);
  tab = await openTab(browser, `${base()}/admin/#/events`);
  await signIn(tab, TOKEN);
});

afterAll(async () => {
  await agent('/browser/end-browser').catch(() => undefined);
  await Promise.all([browser?.close(), server?.close()]);
  await rm(secrets, { recursive: true, force: true });
});

const lines = () => tab.page.getByRole('list', { name: 'Events, newest first' }).getByRole('listitem');

describe('the Events view', () => {
  it('shows events caused while it is open, newest first, and filters them by kind', async () => {
    const page = tab.page;
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.getByText('live', { exact: true }).waitFor();
    expect(await page.getByText('Nothing yet.').isVisible()).toBe(true);

    expect((await agent('/browser/navigate', { url: `${site}/login.html` })).status).toBe(200);
    await lines().filter({ hasText: 'browser opened' }).waitFor();
    const refused = await agent('/browser/write', {
      selector: { css: '#password' },
      secret: { name: 'elsewhere', key: 'password' },
    });
    expect(refused.status).toBe(403);
    await lines().filter({ hasText: 'secret refused' }).waitFor();
    expect((await agent('/browser/end-browser')).status).toBe(200);
    await lines().filter({ hasText: 'browser ended' }).waitFor();
    expect(await lines().allTextContents()).toEqual([
      expect.stringMatching(/browser ended\s*ui-events\s*by its caller/),
      expect.stringMatching(
        /secret refused\s*ui-events\s*elsewhere · password on http:\/\/127\.0\.0\.1:\d+ — origin not allowed/,
      ),
      expect.stringMatching(/browser opened\s*ui-events\s*chrome/),
    ]);
    expect(await page.content()).not.toContain('PLANTED');
    // The workspace is a link to its page.
    expect(await lines().first().getByRole('link', { name: W }).getAttribute('href')).toBe(`#/workspaces/${W}`);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: 'docs/admin/events.png' });

    await page.getByLabel('Show').selectOption({ label: 'Secret binds' });
    await expect.poll(() => lines().count()).toBe(1);
    await page.getByLabel('Show').selectOption({ label: 'Flow runs' });
    await page.getByText('None of this kind yet').waitFor();
    await page.getByLabel('Show').selectOption({ label: 'All events' });
    await expect.poll(() => lines().count()).toBe(3);
    expect(tab.problems).toEqual([]);
  });

  it('says it is reconnecting while the server is away, then goes on live', async () => {
    const page = tab.page;
    await server?.close();
    server = undefined;
    await page.getByText('reconnecting…').waitFor({ timeout: 15_000 });
    expect(await page.getByText('Reconnecting to the server…').isVisible()).toBe(true);
    // What was shown stays shown while it is away.
    expect(await lines().count()).toBe(3);
    await serve();
    await page.getByText('live', { exact: true }).waitFor({ timeout: 15_000 });
    expect((await agent('/browser/navigate', { url: `${site}/table.html` })).status).toBe(200);
    await expect.poll(() => lines().count(), { timeout: 15_000 }).toBe(4);
    expect(await lines().first().textContent()).toMatch(/browser opened/);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(tab.problems).toEqual([]);
  });
});
