import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { printedSelectors } from '../../src/browser/outline.js';
import { connectMcp, startServer, type McpCaller, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';
import { expectFieldsInText } from '../helpers/answer-text.js';

const site = inject('siteUrl');
const WORKSPACE = 'outline';

let running: RunningServer;

type Answer = Record<string, unknown>;

const { call, ok } = toolClient(() => running.url, { workspace: WORKSPACE });

/**
 * What the page says of the printed selectors: those that do not match exactly one element,
 * and the visible controls none of them reaches.
 */
const REACH = `
const found = new Set(); const bad = [];
for (const s of arguments[0]) {
  let m; try { m = document.querySelectorAll(s); } catch { bad.push(s); continue; }
  if (m.length === 1) found.add(m[0]); else bad.push(s + ' (' + m.length + ')');
}
const controls = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')].filter((c) => c.checkVisibility());
return { bad, controls: controls.length, missing: controls.filter((c) => !found.has(c)).map((c) => c.outerHTML.slice(0, 80)) };`;

async function outlineOf(page: string, args: Answer = {}) {
  await ok('navigate', { url: `${site}/${page}` });
  const answer = await ok('outline', args);
  const text = answer.outline as string;
  const reach = (await ok('execute_script', { script: REACH, args: [printedSelectors(text)] })).result as {
    bad: string[];
    controls: number;
    missing: string[];
  };
  return { answer, text, bytes: Buffer.byteLength(text), reach };
}

beforeAll(async () => {
  running = await startServer();
  await ok('open_session', { width: 1280, height: 900 });
});

afterAll(async () => {
  await call('end_browser');
  await running.close();
});

describe('outline follows the structure and folds repetition', () => {
  it('prints the 83-card catalogue whole in under 4,000 bytes, every control reachable', async () => {
    const { answer, text, bytes, reach } = await outlineOf('catalogue.html');
    expect(answer.truncated).toBeUndefined();
    expect(bytes).toBeLessThanOrEqual(4_000);
    expect(reach.bad).toEqual([]);
    expect(reach.missing).toEqual([]);
    expect(reach.controls).toBeGreaterThan(83 * 3);
    // One pattern for the cards, with the first and last product named, in document order.
    expect(text).toMatch(/83 × article\.card #card-\{1\.\.83\}\n\s+## "Steel Blanket 1" … "Slate Speaker 83"/);
    expect(text.indexOf('83 × ')).toBeGreaterThan(text.indexOf('"Apply"'));
    expect(text.indexOf('footer')).toBeGreaterThan(text.indexOf('83 × '));
    expect(text.match(/^\s*header /gm)).toHaveLength(1);

    // The card's button is found from its product: the template, filled with the card's number.
    const button = /button "Add to cart" (\S*\{n\}\S*(?: \S+)*)/.exec(text)?.[1] ?? '';
    const qty = /number "Qty" (\S*\{n\}\S*)/.exec(text)?.[1] ?? '';
    await ok('write', { selector: { css: qty.replace('{n}', '42') }, text: '3' });
    await ok('interact', { action: 'click', selector: { css: button.replace('{n}', '42') } });
    expect((await ok('extract', { selector: { css: '#cart-count' } })).value).toBe('3');
  });

  for (const [page, limit] of [
    ['article.html', 4_000],
    ['users-table.html', 3_000],
    ['settings.html', 3_000],
    ['docs-page.html', 4_000],
    ['heavy.html', 6_000],
  ] as const) {
    it(`outlines ${page} uncut in under ${limit} bytes, every control reachable`, async () => {
      const { answer, bytes, reach } = await outlineOf(page);
      expect(answer.truncated).toBeUndefined();
      expect(bytes).toBeLessThanOrEqual(limit);
      expect(reach.bad).toEqual([]);
      expect(reach.missing).toEqual([]);
    });
  }

  it('gives a table as its header, row count and a selector, and folds the controls of its rows', async () => {
    const { text } = await outlineOf('users-table.html');
    expect(text).toContain(
      'table "Users, page 1 of 10" #users — 25 rows: · | ID | Name | Email | Role | Joined | Actions',
    );
    expect(text).not.toContain('alan3@example.com');
    expect(text).toContain('25 × tr tbody > tr:nth-of-type({1..25})');
  });

  it('folds more instead of cutting the end when the page is long for max_chars', async () => {
    const full = await outlineOf('article.html');
    const { answer, text, reach } = await outlineOf('article.html', { max_chars: 1_500 });
    expect(answer.truncated).toBeUndefined();
    expect(text.length).toBeLessThanOrEqual(1_500);
    expect(text.length).toBeLessThan(full.text.length / 2);
    expect(reach.bad).toEqual([]);
    // The end of the page is still there, and what is folded says how to see it.
    expect(text).toMatch(/footer footer/);
    expect(text).toMatch(/nav "Contents" nav\.toc — 1 heading, 18 links: outline it for them/);
    const part = (await ok('outline', { selector: { css: 'nav.toc' } })).outline as string;
    expect(part).toContain('link "Next steps"');
  });
});

describe('MCP text blocks are plain lines for a model', () => {
  let mcp: McpCaller;
  beforeAll(async () => {
    mcp = await connectMcp(running.url, '2026-07-28', { workspace: WORKSPACE });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('says where navigate went, gives extract its text and outline its outline, unescaped', async () => {
    const went = await mcp.call('navigate', { url: `${site}/login.html` });
    expect(went.text).toBe(`Login — ${site}/login.html`);
    expectFieldsInText(went.text, went.structured);

    const read = await mcp.call('extract', { selector: { css: 'h1' } });
    expect(read.text).toBe(read.structured?.value);

    const map = await mcp.call('outline');
    expect(map.text).toBe(`Login — ${site}/login.html\n\n${String(map.structured?.outline)}`);
    expect(map.text).not.toContain('\\n');
    expect(map.text).toContain('email "Email" #email');

    const all = await mcp.call('extract', { selector: { css: 'label' }, all: true });
    expect(all.text.split('\n').every((line) => line.startsWith('- '))).toBe(true);
    expectFieldsInText(all.text, all.structured);
  });

  it('says an open dialog in words', async () => {
    await mcp.call('navigate', { url: `${site}/dialogs.html` });
    const clicked = await mcp.call('interact', { action: 'click', selector: { css: '#alert' } });
    expect(clicked.text).toContain('A dialog is open, saying: Hello alert — answer it with the dialog tool.');
    expectFieldsInText(clicked.text, clicked.structured);
    const answered = await mcp.call('dialog', { action: 'accept' });
    expect(answered.text).toContain('message: Hello alert');
    expectFieldsInText(answered.text, answered.structured);
  });

  it('keeps REST answers JSON', async () => {
    const answer = await call('navigate', { url: `${site}/login.html` });
    expect(answer.body).toEqual({ url: `${site}/login.html`, title: 'Login' });
  });
});
