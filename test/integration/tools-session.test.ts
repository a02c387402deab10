import { describe, expect, it } from 'vitest';
import { connectMcp, gridHas, gridIdOf, testBrowser, type ProtocolEra } from '../helpers/server.js';
import { expectFieldsInText } from '../helpers/answer-text.js';
import { pngSize, TOOLS_WORKSPACE, useToolsBrowser } from '../helpers/tools-browser.js';

type Answer = Record<string, unknown>;

const browser = useToolsBrowser();
const { site, ok, script, workspace } = browser;

describe('open_session and current_workspace', () => {
  it('opens a browser the workspace remembers, ending the one it held', async () => {
    const held = await gridIdOf(browser.running(), TOOLS_WORKSPACE);
    expect(held).toBeDefined();
    const opened = await ok('open_session', { width: 1024, height: 768 });
    // Which browser opened; a new browser's blank page is not read.
    expect(opened).toEqual({ browser: testBrowser(), version: expect.stringMatching(/^\d+\./) as string });
    const now = await gridIdOf(browser.running(), TOOLS_WORKSPACE);
    expect(now).toBeDefined();
    expect(now).not.toBe(held);
    expect(await gridHas(held ?? '')).toBe(false);
    const current = await workspace();
    expect(current).toMatchObject({
      workspace: TOOLS_WORKSPACE,
      mode: 'saved',
      browser: { kind: testBrowser(), alive: true },
      window: { width: 1024, height: 768 },
    });
    expect((current.browser as Answer).version).not.toBe('');
  });

  it('current_workspace reports the last page an acting call reached', async () => {
    const went = await ok('navigate', { url: `${site}/table.html` });
    const current = await workspace();
    expect(current.url).toBe(went.url);
    expect(current.title).toBe('Data table');
  });
});

describe('navigate', () => {
  it('opens a url and answers where the browser is', async () => {
    const went = await ok('navigate', { url: `${site}/login.html` });
    expect(went).toMatchObject({ url: `${site}/login.html`, title: 'Login' });
  });

  it('moves back, forward and refreshes', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    await ok('navigate', { url: `${site}/table.html` });
    expect(await ok('navigate', { action: 'back' })).toMatchObject({ url: `${site}/login.html`, title: 'Login' });
    expect(await ok('navigate', { action: 'forward' })).toMatchObject({
      url: `${site}/table.html`,
      title: 'Data table',
    });
    await script('window.__beforeRefresh = true;');
    expect(await ok('navigate', { action: 'refresh' })).toMatchObject({ url: `${site}/table.html` });
    expect(await script('return window.__beforeRefresh === true')).toBe(false);
  });
});

describe('resize', () => {
  it('sets the window size', async () => {
    const resized = await ok('resize', { width: 900, height: 700 });
    expect(resized).toMatchObject({ width: 900, height: 700 });
    expect(await script('return window.outerWidth')).toBe(900);
    // The workspace remembers it, for the admin page and its next browser.
    expect(await workspace()).toMatchObject({ window: { width: 900, height: 700 } });
    await ok('resize', { width: 1280, height: 900 });
    expect(await workspace()).toMatchObject({ window: { width: 1280, height: 900 } });
  });
});

describe('end_browser', () => {
  const other = 'tools-end';
  const theirs = browser.in(other);

  it('ends the browser; the workspace stays, reads answer 404 with the remedy, acts open a new one', async () => {
    await theirs.ok('open_session', {});
    const opened = await gridIdOf(browser.running(), other);
    await theirs.ok('navigate', { url: `${site}/login.html` });
    expect(await theirs.ok('end_browser', {})).toEqual({ ended: true });
    const after = await workspace(theirs);
    expect(after).toMatchObject({ workspace: other, mode: 'saved', browser: null, url: `${site}/login.html` });
    expect(await theirs.ok('end_browser', {})).toEqual({ ended: false });

    const read = await theirs.call('extract', { selector: { css: 'h1' } });
    expect(read.status).toBe(404);
    expect(JSON.stringify(read.body)).toContain('open_session');
    expect((await workspace(theirs)).browser).toBeNull();

    const went = await theirs.ok('navigate', { url: `${site}/table.html` });
    expect(went.title).toBe('Data table');
    expect((await workspace(theirs)).browser).toMatchObject({ alive: true });
    expect(await gridIdOf(browser.running(), other)).not.toBe(opened);
    expect(await theirs.ok('end_browser', {})).toEqual({ ended: true });
  });
});

describe('the same calls over HTTP and MCP', () => {
  const parity = 'tools-parity';

  /** The sequence, with the answers a user would compare. */
  async function runSequence(invoke: (tool: string, args: Answer) => Promise<Answer>): Promise<Answer[]> {
    const steps: [string, Answer][] = [
      ['open_session', { width: 1000, height: 800 }],
      ['navigate', { url: `${site}/login.html` }],
      ['write', { selector: { css: '#email' }, text: 'parity@example.com' }],
      ['interact', { action: 'select', selector: { css: '#country' }, option: 'Germany' }],
      ['interact', { action: 'check', selector: { css: '#remember' } }],
      ['extract', { selector: { css: '#country' }, what: 'value' }],
      ['extract', { selector: { css: 'label' }, all: true }],
      ['execute_script', { script: 'return [arguments[0], document.title]', args: [7] }],
      ['outline', {}],
      ['screenshot', { width: 500 }],
      ['navigate', { url: `${site}/dialogs.html` }],
      ['interact', { action: 'click', selector: { css: '#prompt' } }],
      ['dialog', { action: 'accept', text: 'same' }],
      ['extract', { selector: { css: '#result' } }],
      ['write', { selector: { css: '#nope' }, text: 'x', wait_timeout: 0 }],
      ['navigate', { url: 'javascript:alert(1)' }],
      ['current_workspace', {}],
      ['end_browser', {}],
    ];
    const answers: Answer[] = [];
    for (const [tool, args] of steps) {
      answers.push(comparable(tool, await invoke(tool, args)));
    }
    return answers;
  }

  function comparable(tool: string, answer: Answer): Answer {
    const copy = structuredClone(answer);
    if (tool === 'screenshot') {
      delete copy.data;
      delete copy.bytes;
    }
    return { tool, ...copy };
  }

  it('answers the same structured results on every surface', async () => {
    const overHttp = await runSequence(async (tool, args) => {
      // The table's routes: current_workspace is GET /workspace, the rest POST /browser/….
      const answer = await browser.in(parity).call(tool, args);
      if (answer.status !== 200) {
        return { error: (answer.body.error as Answer).message };
      }
      if (tool === 'screenshot') {
        expect(pngSize(answer.body.data as string).width).toBe(500);
      }
      return answer.body;
    });
    expect(overHttp.filter((a) => 'error' in a)).toHaveLength(2);

    for (const era of ['2025-11-25', '2026-07-28'] as ProtocolEra[]) {
      const mcp = await connectMcp(browser.running().url, era, { workspace: parity });
      try {
        const overMcp = await runSequence(async (tool, args) => {
          const answer = await mcp.call(tool, args);
          if (answer.isError) {
            return { error: answer.text };
          }
          if (tool === 'screenshot') {
            const image = answer.content.find((c) => c.type === 'image');
            expect(image?.mimeType).toBe('image/png');
            expect(pngSize(image?.data ?? '').width).toBe(500);
            expect(answer.structured).not.toHaveProperty('data');
          }
          expectFieldsInText(answer.text, answer.structured);
          return answer.structured ?? {};
        });
        expect(overMcp, era).toEqual(overHttp);
      } finally {
        await mcp.close();
      }
    }
    // Three browsers in turn, one after the other: a busy Grid takes seconds to start each.
  }, 180_000);
});
