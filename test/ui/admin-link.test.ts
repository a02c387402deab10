import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { messageOf } from '../helpers/admin.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { launchBrowser, openTab, type AdminTab, type PageBrowser } from './browser.js';

/** The admin link the banner prints when no token is set: `Admin: <base>/admin/#code=<43 base64url>`. */
const LINK = /Admin:\s+(http:\/\/\S+\/admin\/#code=([A-Za-z0-9_-]{43}))\s/;

/** The expiring replica's ADMIN_LINK_TTL, in seconds. */
const EXPIRING_TTL_S = 1;

let server: Replica;
let expiring: Replica;
/** By then the expiring replica had issued its link: it had printed it. */
let expiringIssuedBy: number;
const browsers: PageBrowser[] = [];

/** A new browser, profile and all: nothing of another test's sign-in carries over. */
async function freshTab(url: string): Promise<AdminTab> {
  const browser = await launchBrowser();
  browsers.push(browser);
  return openTab(browser, url);
}

function linkOf(replica: Replica): { link: string; code: string } {
  const match = LINK.exec(replica.output());
  if (!match?.[1] || !match[2]) {
    throw new Error(`no admin link in the banner:\n${replica.output()}`);
  }
  return { link: match[1], code: match[2] };
}

/** The sign-in form with the server's refusal on it: the link signed nobody in. */
async function expectRefused(tab: AdminTab): Promise<void> {
  await expect
    .poll(async () => tab.page.getByRole('alert').textContent(), { timeout: 15_000 })
    .toContain('restart the server for a new link, or set ADMIN_TOKEN');
  expect(await tab.page.getByLabel('Admin token').isVisible()).toBe(true);
  expect(await tab.page.getByRole('navigation', { name: 'Views', exact: true }).count()).toBe(0);
}

beforeAll(async () => {
  // No ADMIN_TOKEN, MCP_AUTH_TOKEN or TOKENS_FILE: `npm start` as a newcomer runs it.
  const gridUrl = inject('gridUrl');
  [server, expiring] = await Promise.all([
    spawnReplica({ GRID_URL: gridUrl, LOG_LEVEL: 'trace' }),
    spawnReplica({ GRID_URL: gridUrl, ADMIN_LINK_TTL: String(EXPIRING_TTL_S) }),
  ]);
  expiringIssuedBy = Date.now();
});

afterAll(async () => {
  await Promise.all([...browsers.map((b) => b.close()), server?.kill('SIGTERM'), expiring?.kill('SIGTERM')]);
});

describe('the admin link of a server without a token', () => {
  it('is printed once, in the banner, under the server’s own address', () => {
    const { link, code } = linkOf(server);
    expect(link.startsWith(`${server.url}/admin/#code=`)).toBe(true);
    // The code is in the banner line and nowhere else the server wrote (its trace log included).
    expect(server.output().split(code)).toHaveLength(2);
  });

  it('keeps the admin API closed without the session it gives', async () => {
    const refused = await fetch(`${server.url}/admin/api/workspaces`);
    expect(refused.status).toBe(401);
    expect(messageOf(await refused.json())).toContain('set ADMIN_TOKEN');
    const forged = await fetch(`${server.url}/admin/api/workspaces`, {
      headers: { authorization: `Bearer ${linkOf(server).code}` },
    });
    // The code itself is not a session.
    expect(forged.status).toBe(401);
  });

  it('refuses a page of another origin (a managed browser’s page) before it looks at the code', async () => {
    const answer = await fetch(`${server.url}/admin/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://example.test' },
      body: JSON.stringify({ code: 'x'.repeat(43) }),
    });
    expect(answer.status).toBe(403);
  });

  it('opens the admin page signed in, takes the code out of the address, and works once', async () => {
    const { link, code } = linkOf(server);
    const tab = await freshTab(link);
    await tab.page.getByRole('navigation', { name: 'Views', exact: true }).waitFor({ timeout: 20_000 });
    await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    expect(tab.page.url()).not.toContain(code);
    expect(tab.page.url()).not.toContain('code=');
    // Back and forward through history find no address with the code either: it was replaced, not pushed.
    await tab.page.goBack();
    expect(tab.page.url()).not.toContain('code=');
    await tab.page.goForward();
    expect(tab.page.url()).not.toContain('code=');
    // A reload keeps the session (sessionStorage), and the address still has no code.
    await tab.page.reload();
    await tab.page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    expect(tab.problems).toEqual([]);

    // The same link in a fresh browser: used, so nobody is signed in.
    await expectRefused(await freshTab(link));
  });

  it('signs nobody in once it has expired', async () => {
    const { link } = linkOf(expiring);
    // Until the TTL has run from the issue (the earlier tests have mostly spent it), not a fixed time from now.
    const expired = expiringIssuedBy + EXPIRING_TTL_S * 1000 + 1;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expired - Date.now())));
    const tab = await freshTab(link);
    await expectRefused(tab);
    const closed = await fetch(`${expiring.url}/admin/api/workspaces`);
    expect(closed.status).toBe(401);
  });

  it('never writes the code anywhere but the banner line, after it was used', async () => {
    const { code } = linkOf(server);
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes(code));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\s+Admin:/);
  });
});
