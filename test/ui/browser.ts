import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium with the flags this machine needs (../shared/notes/local-grid.md), in a fresh profile. */
export interface PageBrowser {
  browser: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<PageBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'admin-ui-profile-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 860 },
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A tab on the admin page that records everything that would leave a person looking at a broken
 * page: a script error, or a script or style the server did not deliver. Tests assert it stays empty.
 */
export interface AdminTab {
  page: Page;
  problems: string[];
  /** bytes on the wire (gzipped as sent) of every response since the tab opened */
  transferred(): Promise<number>;
}

export async function openTab(browser: PageBrowser, url: string): Promise<AdminTab> {
  const page = await browser.browser.newPage();
  const problems: string[] = [];
  const requests: Promise<number>[] = [];
  page.on('pageerror', (err) => problems.push(`script error: ${err.message}`));
  page.on('requestfailed', (request) => {
    if (['script', 'stylesheet', 'document'].includes(request.resourceType())) {
      problems.push(`${request.resourceType()} failed: ${request.url()} (${request.failure()?.errorText ?? ''})`);
    }
  });
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (['script', 'stylesheet'].includes(type) && response.status() >= 400) {
      problems.push(`${type} answered ${response.status()}: ${response.url()}`);
    }
  });
  page.on('requestfinished', (request) => {
    requests.push(
      request.sizes().then(
        (sizes) => sizes.responseBodySize + sizes.responseHeadersSize,
        () => 0,
      ),
    );
  });
  await page.goto(url);
  return {
    page,
    problems,
    transferred: async () => (await Promise.all(requests)).reduce((a, b) => a + b, 0),
  };
}

/** Signs in through the form, as a person does, and waits for the page behind it. */
export async function signIn(tab: AdminTab, token: string): Promise<void> {
  await tab.page.getByLabel('Admin token').fill(token);
  await tab.page.getByRole('button', { name: 'Sign in' }).click();
  await tab.page.getByRole('navigation', { name: 'Views', exact: true }).waitFor();
}

export type { Browser, Page };

let axeSource: string | undefined;

/** axe-core's findings on the page as it is now (WCAG 2 A/AA), one line each: rule, impact, where. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const { readFile } = await import('node:fs/promises');
  const { createRequire } = await import('node:module');
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // evaluate() runs beside the page's CSP, which (rightly) refuses an injected script tag.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
  });
  return violations.map((v) => `${v.id} (${v.impact ?? '?'}): ${v.targets.join(' | ')}`);
}

interface AxeViolation {
  id: string;
  impact?: string;
  nodes: { target: string[] }[];
}
