import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminClient, type AdminClient } from '../helpers/admin.js';
import { plantedLoginFlow, secretsDir } from '../helpers/secrets.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, signIn, type AdminTab, type PageBrowser } from './browser.js';

const TOKEN = 'admin-secrets-token-c41d';
const WORKSPACE = 'ui-secrets';
/** Planted in the catalogue: the page and every admin answer it reads must never carry one. */
const PLANTED = ['PLANTED-ui-pw-81e0c3', 'planted-ui-user-2a7f', 'PLANTED-ui-token-55d1', 'PLANTED-ui-half-9b02'];

let running: RunningServer;
let browser: PageBrowser;
let client: AdminClient;
let dataDir: string;
let secrets: string;
const site = () => inject('siteUrl');

/** The planted login flow, with a screenshot of the filled form before it submits. */
const LOGIN = () =>
  plantedLoginFlow(site(), '  - id: shot\n    tool: screenshot\n    args: { save: true, filename: signed-in }\n');

const SHARED = `description: the shared sign-in
steps:
  - tool: navigate
    args: { url: "https://example.test/" }
  - tool: write
    args: { selector: { css: "#user" }, secret: { name: site-login, key: username } }
`;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'admin-secrets-'));
  secrets = await secretsDir({
    'site-login': {
      username: PLANTED[1] as string,
      password: PLANTED[0] as string,
      _description: 'The fixture site login',
      _allowed_urls: `# only the fixture site\n${new URL(site()).origin}\n`,
    },
    anywhere: { token: PLANTED[2] as string },
    'half-bad': { password: PLANTED[3] as string, _allowed_urls: `${new URL(site()).origin}\n\nnot an origin\n` },
  });
  [running, browser] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN, FLOW_DATA_DIR: dataDir, SECRETS_DIRS: secrets }),
    launchBrowser(),
  ]);
  client = adminClient(running.url, TOKEN, TOKEN);
  for (const [library, name, yaml] of [
    [WORKSPACE, 'login', LOGIN()],
    ['global', 'shared-login', SHARED],
  ] as const) {
    const saved = await client.admin('PUT', `/admin/api/workspaces/${library}/flows/${name}`, { yaml });
    expect(saved.status, saved.text).toBe(200);
  }
});

afterAll(async () => {
  await client?.agent(WORKSPACE, '/browser/end-browser').catch(() => undefined);
  await Promise.all([browser?.close(), running?.close()]);
  await rm(dataDir, { recursive: true, force: true });
  await rm(secrets, { recursive: true, force: true });
});

const card = (tab: AdminTab, heading: string) =>
  tab.page.locator('article').filter({ has: tab.page.getByRole('heading', { name: heading, exact: true }) });

describe('the Secrets tab', () => {
  it('shows read-only cards, the flows and steps that type each, and names no secret defines', async () => {
    const tab = await openTab(browser, `${running.url}/admin/#/workspaces/${WORKSPACE}/secrets`);
    const page = tab.page;
    try {
      await signIn(tab, TOKEN);
      const login = card(tab, '🔑 site-login');
      await login.waitFor();
      expect(await login.getByText('The fixture site login').isVisible()).toBe(true);
      expect(await login.locator('.pill').allTextContents()).toEqual(['password', 'username']);
      expect(await login.getByText(new URL(site()).origin, { exact: true }).isVisible()).toBe(true);
      expect(await login.getByText(/^filesystem · /).isVisible()).toBe(true);
      // This workspace's flow first, then the shared one, each step its own link.
      const typedBy = login.getByRole('listitem');
      expect(await typedBy.count()).toBe(2);
      expect(await typedBy.nth(0).getByRole('link', { name: 'login', exact: true }).getAttribute('href')).toBe(
        `#/workspaces/${WORKSPACE}/flows/login`,
      );
      expect(await typedBy.nth(0).textContent()).toContain('step 2 (pass) · password');
      expect(await typedBy.nth(1).getByRole('link', { name: '🌐 shared-login' }).getAttribute('href')).toBe(
        `#/workspaces/${WORKSPACE}/flows/shared-login`,
      );
      expect(await typedBy.nth(1).textContent()).toContain('step 2 · username');

      expect(await card(tab, '🔑 anywhere').getByText('any site', { exact: true }).isVisible()).toBe(true);
      expect(await card(tab, '🔑 anywhere').getByText('No stored flow types it.').isVisible()).toBe(true);
      const halfBad = card(tab, '🔑 half-bad');
      expect(await halfBad.getByText('unusable until fixed').isVisible()).toBe(true);
      // A refused line is named by its number, never quoted (its text could be anything).
      expect(await halfBad.getByText(/^_allowed_urls line 3: /).isVisible()).toBe(true);
      expect(await halfBad.textContent()).not.toContain('not an origin');

      const missing = card(tab, 'no-such-secret');
      expect(await missing.getByText('not defined').isVisible()).toBe(true);
      expect(await missing.getByRole('link', { name: 'step 3 (ghost)' }).getAttribute('href')).toBe(
        `#/workspaces/${WORKSPACE}/flows/login/steps/3`,
      );
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: 'docs/admin/secrets.png', fullPage: true });

      // From the keyboard: the step link lands on the Flows tab with that step picked and focused.
      await login.getByRole('link', { name: 'step 2 (pass)' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => new URL(page.url()).hash).toBe(`#/workspaces/${WORKSPACE}/flows/login/steps/2`);
      const detail = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Detail' }) });
      await detail.getByText('🔒 site-login · password').waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('step-2');
      expect(
        await page.getByRole('button', { name: 'Step 2: write pass, types a secret' }).getAttribute('aria-pressed'),
      ).toBe('true');
      expect(tab.problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('no secret value on the page', () => {
  it('never shows a planted value, in any view or any admin answer the page read', async () => {
    // The flow types the password into a real page, which submits it into its own URL.
    const run = await client.agent(WORKSPACE, '/flows/login/run', { params: {} });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({ status: 'ok' });

    const tab = await openTab(browser, `${running.url}/admin/`);
    const page = tab.page;
    const answers: Promise<string>[] = [];
    const seenPaths = new Set<string>();
    // Read once each answer has arrived whole: a poll the page aborted (it left the view) never
    // finishes, and its body never reached the page. A stream never ends either: what it carried
    // is on the page, which is grepped below.
    page.on('requestfinished', (request) => {
      const url = new URL(request.url());
      if (!url.pathname.includes('/admin/api/')) {
        return;
      }
      seenPaths.add(url.pathname.replace(/^.*\/admin\/api\//, ''));
      answers.push(
        request.response().then(
          (response: Response | null) => response?.text() ?? '',
          () => '',
        ),
      );
    });
    const html: string[] = [];
    // A view has read its answer once it says Loading… no more.
    const settled = () => expect.poll(() => page.getByText('Loading…').count()).toBe(0);
    const capture = async () => {
      html.push(await page.content());
    };
    try {
      await signIn(tab, TOKEN);
      await page.getByRole('link', { name: WORKSPACE, exact: true }).waitFor();
      await capture();

      // Every top-level view, then every tab of the workspace (and every flow in its Flows tab).
      const views = page.getByRole('navigation', { name: 'Views', exact: true }).getByRole('link');
      for (const name of await views.allTextContents()) {
        await views.filter({ hasText: name }).click();
        await page.getByRole('heading', { name, level: 1 }).waitFor();
        await settled();
        await capture();
      }
      for (const workspace of [WORKSPACE, 'global']) {
        await page.goto(`${running.url}/admin/#/workspaces/${workspace}`);
        const tabs = page.getByRole('navigation', { name: 'Workspace views' }).getByRole('link');
        await tabs.first().waitFor();
        for (const name of await tabs.allTextContents()) {
          await tabs.filter({ hasText: name }).click();
          await expect.poll(() => tabs.filter({ hasText: name }).getAttribute('aria-current')).toBe('page');
          await settled();
          await capture();
          if (name === 'Flows') {
            const flows = page.locator('section[aria-labelledby="flows-title"]').getByRole('button');
            for (let f = 0; f < (await flows.count()); f += 1) {
              const flow = (await flows.nth(f).locator('.grow').textContent()) ?? '';
              await flows.nth(f).click();
              await expect.poll(() => page.locator('#outline-title').textContent()).toContain(flow);
              // Every step's detail, where the arguments are shown.
              const steps = page.getByRole('button', { name: /^Step \d+:/ });
              for (let i = 0; i < (await steps.count()); i += 1) {
                await steps.nth(i).click();
                await capture();
              }
              await page.getByRole('button', { name: 'Edit YAML' }).click();
              await page.getByRole('dialog').locator('.cm-content').waitFor();
              await capture();
              await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
              await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
            }
          }
        }
      }
      // The screenshot the run took opens in the lightbox like any other.
      await page.goto(`${running.url}/admin/#/workspaces/${WORKSPACE}`);
      await page.getByRole('button', { name: 'Open signed-in.png' }).click();
      await page.getByRole('dialog', { name: 'signed-in.png' }).waitFor();
      await capture();
      await page.keyboard.press('Escape');

      const bodies = await Promise.all(answers);
      const everything = [...html, ...bodies].join('\n');
      // It saw what it should have: the listing, both workspaces, their files, flows and the secrets.
      for (const path of ['workspaces', `workspaces/${WORKSPACE}`, 'workspaces/global', 'secrets', 'grid']) {
        expect(seenPaths, path).toContain(path);
      }
      expect([...seenPaths].some((p) => p.startsWith(`workspaces/${WORKSPACE}/flows/`))).toBe(true);
      expect(everything).toContain('site-login');
      for (const planted of PLANTED) {
        expect(everything, planted).not.toContain(planted);
      }
      expect(tab.problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
