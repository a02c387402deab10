import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type PageBrowser } from './browser.js';

const TOKEN = 'admin-page-token-3f9a';
let running: RunningServer;
let prefixed: RunningServer;
let browser: PageBrowser;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'admin-page-'));
  [running, prefixed, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: dataDir }),
    startServer({ MCP_AUTH_TOKEN: TOKEN, ROUTE_PREFIX: '/tools/selenium' }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), running?.close(), prefixed?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

/** A raw GET, so the test chooses the Host header and sees redirects and encodings as sent. */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serving the admin page', () => {
  it('redirects / and /admin to /admin/, under ROUTE_PREFIX too', async () => {
    for (const [base, path, to] of [
      [running.url, '/', '/admin/'],
      [running.url, '/admin', '/admin/'],
      [prefixed.url, '/tools/selenium', '/tools/selenium/admin/'],
      [prefixed.url, '/tools/selenium/', '/tools/selenium/admin/'],
      [prefixed.url, '/tools/selenium/admin', '/tools/selenium/admin/'],
    ] as const) {
      const answer = await get(base + path);
      expect([answer.status, answer.headers.location], path).toEqual([302, to]);
    }
  });

  it('revalidates the page, caches its hashed scripts for good, and sends them gzipped', async () => {
    const page = await get(`${running.url}/admin/`, { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    const html = gunzipSync(page.body).toString();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await get(`${running.url}/admin/${script}`, { 'accept-encoding': 'gzip' });
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['content-type']).toContain('text/javascript');
    const again = await get(`${running.url}/admin/${script}`, { 'if-none-match': String(asset.headers.etag) });
    expect(again.status).toBe(304);
    expect((await get(`${running.url}/admin/assets/nothing.js`)).status).toBe(404);
  });

  it('refuses a Host it does not answer to, like every other route', async () => {
    const answer = await get(`${running.url}/admin/`, { host: 'evil.example' });
    expect(answer.status).toBe(403);
    expect(answer.body.toString()).toContain('ALLOWED_HOSTS');
  });
});

describe('signing in', () => {
  it('says on the form that a wrong token was refused, and signs in with the right one', async () => {
    const tab = await openTab(browser, `${running.url}/admin/`);
    try {
      await expect.poll(() => tab.page.getByRole('heading', { name: 'selenium-flow' }).isVisible()).toBe(true);
      expect(await accessibilityViolations(tab.page)).toEqual([]);
      await tab.page.getByLabel('Admin token').fill('not-the-token');
      await tab.page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => tab.page.getByRole('alert').textContent()).toContain('refused that token');
      await expect.poll(() => tab.page.getByRole('navigation', { name: 'Views', exact: true }).count()).toBe(0);
      await signIn(tab, TOKEN);
      // The token is the tab's: in sessionStorage, never in the address.
      expect(tab.page.url()).not.toContain(TOKEN);
      expect(await tab.page.evaluate(() => Object.values(sessionStorage) as string[])).toContain(TOKEN);
      await tab.page.reload();
      await tab.page.getByRole('navigation', { name: 'Views', exact: true }).waitFor();
      await tab.page.getByRole('button', { name: 'Sign out' }).click();
      await tab.page.getByLabel('Admin token').waitFor();
      expect(await tab.page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(tab.problems).toEqual([]);
    } finally {
      await tab.page.close();
    }
  });

  it('works under ROUTE_PREFIX, asking the API under the prefix', async () => {
    const tab = await openTab(browser, `${prefixed.url}/tools/selenium`);
    try {
      await signIn(tab, TOKEN);
      expect(new URL(tab.page.url()).pathname).toBe('/tools/selenium/admin/');
      expect(tab.problems).toEqual([]);
    } finally {
      await tab.page.close();
    }
  });

  it('fails loudly when the script does not load (no green tests over a blank page)', async () => {
    const page = await browser.browser.newPage();
    const tab = { page, problems: [] as string[] };
    try {
      page.on('response', (r) => {
        if (r.request().resourceType() === 'script' && r.status() >= 400) {
          tab.problems.push(`script answered ${r.status()}`);
        }
      });
      await page.route('**/assets/*.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
      await page.goto(`${running.url}/admin/`);
      expect(tab.problems).toEqual(['script answered 404']);
      expect(await page.getByLabel('Admin token').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});

describe('on a phone', () => {
  it('fits every view in a 390 px wide screen; a wide table scrolls in its own box', async () => {
    const workspace = 'ui-phone';
    const as = { authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace };
    // A flow gives the workspace its row in the list, and the Flows tab its three columns.
    const saved = await fetch(`${running.url}/flows/search`, {
      method: 'PUT',
      headers: { ...as, 'content-type': 'application/yaml' },
      body: 'description: Look something up\nsteps:\n  - tool: navigate\n    args: {url: "https://example.test/"}\n',
    });
    expect(saved.status, await saved.text()).toBe(200);
    const tab = await openTab(browser, `${running.url}/admin/`);
    const page = tab.page;
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await signIn(tab, TOKEN);
      const views = [
        ['#/workspaces', page.getByRole('link', { name: workspace, exact: true })],
        [`#/workspaces/${workspace}`, page.getByRole('heading', { name: /^Screenshots/ })],
        [`#/workspaces/${workspace}/flows/search`, page.getByRole('heading', { name: 'Detail' })],
        [`#/workspaces/${workspace}/secrets`, page.getByText('No secrets are configured on this server')],
        [`#/workspaces/${workspace}/live`, page.getByRole('heading', { name: 'Live view' })],
        ['#/events', page.getByRole('heading', { name: 'Events', level: 1 })],
        ['#/grid', page.getByRole('heading', { name: 'Node 1' })],
      ] as const;
      for (const [hash, shown] of views) {
        await page.goto(`${running.url}/admin/${hash}`);
        await shown.waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(390);
        const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
        expect(signOut!.x + signOut!.width, hash).toBeLessThanOrEqual(390);
      }

      // The list's last column is still there, a scroll of the table away.
      await page.goto(`${running.url}/admin/#/workspaces`);
      const remove = page.getByRole('button', { name: `Delete workspace ${workspace}` });
      await remove.scrollIntoViewIfNeeded();
      const box = await remove.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(tab.problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
