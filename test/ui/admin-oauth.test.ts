import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_SCOPE,
  AGENT_SCOPE,
  startAuthorizationServer,
  type AuthorizationServer,
} from '../helpers/authorization-server.js';
import { startPublicServer, type RunningServer } from '../helpers/server.js';
import { accessibilityViolations, launchBrowser, openTab, type AdminTab, type PageBrowser } from './browser.js';

const ADMIN_CLIENT = 'selenium-flow-admin';

let issuer: AuthorizationServer;
let server: RunningServer;
const browsers: PageBrowser[] = [];

/** A new browser, profile and all: no sign-in of another test (at the issuer either) carries over. */
async function freshTab(url: string): Promise<AdminTab> {
  const browser = await launchBrowser();
  browsers.push(browser);
  return openTab(browser, url);
}

/** What a person does: the issuer's button, then the issuer's own login form. */
async function signInThroughIssuer(tab: AdminTab, account: string): Promise<void> {
  const host = new URL(issuer.issuer).host;
  await tab.page.getByRole('button', { name: `Sign in with ${host}` }).click();
  await tab.page.getByRole('heading', { name: 'Test Issuer' }).waitFor({ timeout: 15_000 });
  await tab.page.getByLabel('User name').fill(account);
  await tab.page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

beforeAll(async () => {
  issuer = await startAuthorizationServer({ accounts: { olga: [AGENT_SCOPE, ADMIN_SCOPE], alice: [AGENT_SCOPE] } });
  server = await startPublicServer({ OAUTH_ISSUER: issuer.issuer, OAUTH_ADMIN_CLIENT_ID: ADMIN_CLIENT });
  // Registered at the issuer as an operator would: a public client whose redirect is the admin page.
  issuer.register({
    client_id: ADMIN_CLIENT,
    token_endpoint_auth_method: 'none',
    redirect_uris: [`${server.url}/admin/`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  });
});

afterAll(async () => {
  await Promise.all([...browsers.map((b) => b.close()), server?.close()]);
  await issuer?.close();
});

describe('the admin page signs in through OAUTH_ISSUER', () => {
  it('offers the issuer, and signs an operator in with authorization code + PKCE', async () => {
    const tab = await freshTab(`${server.url}/admin/`);
    const host = new URL(issuer.issuer).host;
    const button = tab.page.getByRole('button', { name: `Sign in with ${host}` });
    await button.waitFor({ timeout: 15_000 });
    expect(await tab.page.getByText(`Operators sign in through ${host}`).textContent()).toContain(ADMIN_SCOPE);
    // Pasting a token still works: the form is there below the issuer's button.
    expect(await tab.page.getByLabel('Admin token').isVisible()).toBe(true);
    expect(await accessibilityViolations(tab.page)).toEqual([]);
    await tab.page.screenshot({ path: 'docs/admin/sign-in-oauth.png' });

    await signInThroughIssuer(tab, 'olga');
    await tab.page.getByRole('navigation', { name: 'Views', exact: true }).waitFor({ timeout: 20_000 });
    await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    // The code came back in the query: it is gone from the address and from history.
    expect(tab.page.url()).toBe(`${server.url}/admin/`);
    await tab.page.goBack();
    expect(tab.page.url()).not.toContain('code=');
    await tab.page.goForward();
    // A reload keeps the session (sessionStorage), the address still without a code.
    await tab.page.reload();
    await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    expect(tab.problems).toEqual([]);
    // What the page holds is an operator's access token: it opens the admin API, and not the tools.
    const token = await tab.page.evaluate(() => sessionStorage.getItem('selenium-flow:admin-token'));
    const admin = await fetch(`${server.url}/admin/api/workspaces`, { headers: { authorization: `Bearer ${token}` } });
    expect(admin.status).toBe(200);
  });

  it('tells a person without the operators’ scope why they are not signed in', async () => {
    const tab = await freshTab(`${server.url}/admin/`);
    await signInThroughIssuer(tab, 'alice');
    await expect
      .poll(async () => tab.page.getByRole('alert').textContent(), { timeout: 20_000 })
      .toBe(
        `This access token lacks the scope ${ADMIN_SCOPE}, which the admin page and API need; sign in as an operator whose account at ${issuer.issuer} is granted ${ADMIN_SCOPE}.`,
      );
    expect(await tab.page.getByRole('navigation', { name: 'Views', exact: true }).count()).toBe(0);
    expect(tab.page.url()).toBe(`${server.url}/admin/`);
  });

  it('says so when the sign-in expires, and signs in again with one click at the issuer', async () => {
    issuer.accessTokenTtl = 2;
    try {
      const tab = await freshTab(`${server.url}/admin/`);
      await signInThroughIssuer(tab, 'olga');
      await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor({ timeout: 20_000 });
      // 2 s of token and 5 s of allowed clock skew: the page's next poll is refused.
      await expect
        .poll(async () => tab.page.getByRole('alert').textContent(), { timeout: 30_000, interval: 500 })
        .toMatch(/^This access token expired at \S+; refresh it, or sign in again\.$/);
      issuer.accessTokenTtl = 300;
      // The issuer remembers the person: the button brings them straight back, signed in.
      await tab.page.getByRole('button', { name: `Sign in with ${new URL(issuer.issuer).host}` }).click();
      await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor({ timeout: 20_000 });
    } finally {
      issuer.accessTokenTtl = 300;
    }
  });

  it('refuses a code sent back to a tab that did not ask for it', async () => {
    const tab = await freshTab(`${server.url}/admin/?code=stolen&state=guessed`);
    await expect
      .poll(async () => tab.page.getByRole('alert').textContent(), { timeout: 15_000 })
      .toBe('That sign-in was not started from this tab (or was already used); sign in again.');
    expect(tab.page.url()).toBe(`${server.url}/admin/`);
  });
});
