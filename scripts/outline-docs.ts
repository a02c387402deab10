/**
 * `npx tsx scripts/outline-docs.ts`: writes docs/outline.md, each fixture page's outline beside
 * the size of Playwright's aria snapshot of the same page (what Playwright MCP shows a model),
 * both taken in one local Chromium. Not a test: it measures, and the docs show what it found.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { OUTLINE_SCRIPT } from '../src/browser/outline-script.js';
import { renderWithin, type OutlineNode } from '../src/browser/outline.js';
import { heavyPage } from '../test/fixtures/site.js';

const PAGES: { file: string; what: string }[] = [
  {
    file: 'catalogue.html',
    what: 'a product catalogue: 83 cards (heading, Qty input, Add to cart, Details), filters, ~1,500 nodes',
  },
  { file: 'article.html', what: 'a long article: 18 sections, a table of contents, references, 12 comments' },
  { file: 'users-table.html', what: 'an admin data table: 25 rows with a checkbox, Edit and Delete each, pagination' },
  { file: 'settings.html', what: 'a form-heavy settings page: 4 sections, 25 fields, an API-key table' },
  { file: 'docs-page.html', what: 'a nav-heavy docs page: a 42-link sidebar, breadcrumbs, on-this-page, pager' },
  { file: 'heavy.html', what: "the bench's heavy page: a form, 64 sections, 94 links" },
];
const MAX_CHARS = 10_000;

const html = (file: string) =>
  file === 'heavy.html' ? heavyPage() : readFileSync(new URL(`../test/fixtures/site/${file}`, import.meta.url), 'utf8');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const sections: string[] = [];
const rows: string[] = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  for (const { file, what } of PAGES) {
    await page.setContent(html(file));
    // The same script WebDriver runs, as the body of a function called with (css, xpath) = (null, null).
    const tree = await page.evaluate<OutlineNode[]>(`(function () {${OUTLINE_SCRIPT}\n}).call(null, null, null)`);
    const { outline } = renderWithin(tree, MAX_CHARS);
    const aria = await page.locator('body').ariaSnapshot();
    const ours = Buffer.byteLength(outline);
    const theirs = Buffer.byteLength(aria);
    rows.push(
      `| ${file} | ${what} | ${ours.toLocaleString('en')} B | ${theirs.toLocaleString('en')} B | ${(ours / theirs).toFixed(2)} |`,
    );
    sections.push(`### ${file}: ${ours.toLocaleString('en')} B\n\n\`\`\`text\n${outline}\n\`\`\``);
  }
} finally {
  await browser.close();
}

const doc = readFileSync(new URL('../docs/outline.md', import.meta.url), 'utf8');
const start = doc.indexOf('<!-- measured -->');
const measured = [
  '<!-- measured -->',
  '',
  '| page | what it is | `outline` | Playwright aria snapshot | ratio |',
  '| --- | --- | ---: | ---: | ---: |',
  ...rows,
  '',
  ...sections.flatMap((s) => [s, '']),
].join('\n');
writeFileSync(new URL('../docs/outline.md', import.meta.url), `${doc.slice(0, start)}${measured}`);
