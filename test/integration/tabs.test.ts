import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';
import { poll } from '../../src/poll.js';

const site = inject('siteUrl');

let running: RunningServer;

interface Tab {
  tab: number;
  url: string;
  title: string;
  active: boolean;
}

/** The tabs' pages, sorted: what a test of either browser's tab order can hold. */
function paths(tabs: unknown): string[] {
  return (tabs as Tab[]).map((tab) => new URL(tab.url).pathname).sort();
}

beforeAll(async () => {
  running = await startServer({ FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'tabs-')) });
});

afterAll(async () => {
  await running.close();
});

for (const browser of ['chrome', 'firefox'] as const) {
  describe(`tabs on ${browser}`, () => {
    const { call, ok } = toolClient(() => running.url, { workspace: `tabs-${browser}` });
    const tabs = async (): Promise<Tab[]> => (await ok('navigate', { action: 'tabs' })).tabs as Tab[];
    /** The tabs once every one has loaded past about:blank (a new tab loads after the act answers). */
    const loadedTabs = async (count: number): Promise<Tab[] | undefined> =>
      poll(
        async () => {
          const listed = await tabs();
          return listed.length === count && listed.every((tab) => tab.url.startsWith(site)) ? listed : undefined;
        },
        10_000,
        100,
      );

    beforeAll(async () => {
      await ok('open_session', { browser });
      await ok('navigate', { url: `${site}/tabs.html` });
    });

    afterAll(async () => {
      await call('end_browser');
    });

    it('says which tab a click opened, stays on its page, and selects the new one by place', async () => {
      const quiet = await ok('interact', { action: 'click', selector: { css: '#nothing' } });
      expect(quiet).toMatchObject({ url: `${site}/tabs.html`, title: 'Clicked' });
      expect(quiet.opened_tabs).toBeUndefined();

      const clicked = await ok('interact', { action: 'click', selector: { css: '#new-tab-link' } });
      expect(clicked.opened_tabs).toEqual([1]);
      expect(clicked.url).toBe(`${site}/tabs.html`);

      const listed = await loadedTabs(2);
      expect(listed?.map((tab) => [tab.tab, new URL(tab.url).pathname, tab.active])).toEqual([
        [0, '/tabs.html', true],
        [1, '/welcome.html', false],
      ]);
      expect((await ok('current_workspace')).browser).toMatchObject({ tabs: 2 });

      const selected = await ok('navigate', { tab: 1 });
      expect(selected).toMatchObject({ url: `${site}/welcome.html?email=linked`, title: 'Welcome' });
      expect((selected.tabs as Tab[]).map((tab) => tab.active)).toEqual([false, true]);
      // The next acts run in the selected tab.
      expect((await ok('extract', { selector: { css: '#greeting' } })).value).toBe('Welcome, linked');
    });

    it('names a tab a script opened, opens and closes tabs, and keeps the last one', async () => {
      await ok('navigate', { tab: 0 });
      const clicked = await ok('interact', { action: 'click', selector: { css: '#open-window' } });
      // Places are the browser's order: Firefox puts a tab a page opens beside it, Chromium last.
      const [place] = clicked.opened_tabs as number[];
      const three = await loadedTabs(3);
      expect(three?.map((tab) => new URL(tab.url).pathname).sort()).toEqual([
        '/table.html',
        '/tabs.html',
        '/welcome.html',
      ]);
      expect(new URL(three?.[place ?? -1]?.url ?? '').pathname).toBe('/table.html');

      const opened = await ok('navigate', { action: 'new_tab', url: `${site}/article.html` });
      expect(new URL(String(opened.url)).pathname).toBe('/article.html');
      const four = opened.tabs as Tab[];
      expect(four.filter((tab) => tab.active).map((tab) => new URL(tab.url).pathname)).toEqual(['/article.html']);

      // Closing another tab leaves the browser where it was.
      const welcome = four.find((tab) => tab.url.includes('/welcome.html'))?.tab;
      const closed = await ok('navigate', { action: 'close_tab', tab: welcome });
      expect(paths(closed.tabs)).toEqual(['/article.html', '/table.html', '/tabs.html']);
      expect(new URL(String(closed.url)).pathname).toBe('/article.html');

      // Closing the current one moves to the last tab listed.
      const current = await ok('navigate', { action: 'close_tab' });
      expect(paths(current.tabs)).toEqual(['/table.html', '/tabs.html']);
      const rest = current.tabs as Tab[];
      expect(current.url).toBe(rest[rest.length - 1]?.url);
      await ok('navigate', { tab: 0 });
      await ok('navigate', { action: 'close_tab', tab: 1 });

      const last = await call('navigate', { action: 'close_tab' });
      expect(last.status).toBe(400);
      expect(JSON.stringify(last.body)).toContain(
        "That is the browser's last tab; end_browser ends the browser, or open another tab first.",
      );
      const far = await call('navigate', { tab: 5 });
      expect(far.status).toBe(404);
      expect(JSON.stringify(far.body)).toContain('No tab 5: the browser has 1 (0 to 0, or -1 for the last)');
      expect(paths(await tabs())).toHaveLength(1);
    });

    // -1 is the newest tab: what a flow names after an act that opened one.
    it('steps across tabs in a flow, by place', async () => {
      await ok('save_flow', {
        name: `across-tabs-${browser}`,
        document: {
          steps: [
            { tool: 'navigate', args: { url: `${site}/tabs.html` } },
            { tool: 'interact', args: { action: 'click', selector: { css: '#new-tab-link' } } },
            { tool: 'navigate', args: { tab: -1 } },
            { tool: 'assert', args: { selector: { css: '#greeting' }, message: 'the new tab loaded' } },
            { tool: 'extract', id: 'greeting', args: { selector: { css: '#greeting' } }, return: true },
            { tool: 'navigate', args: { action: 'close_tab' } },
          ],
        },
      });
      const run = await ok('run_flow', { name: `across-tabs-${browser}` });
      expect(run).toMatchObject({ status: 'ok', returned: { greeting: { value: 'Welcome, linked' } } });
      expect((await tabs()).map((tab) => new URL(tab.url).pathname)).toEqual(['/tabs.html']);
    });

    it('answers a call on a tab the page closed with how to go on, and keeps the browser', async () => {
      // Chromium lets a script close only a window a script opened.
      const clicked = await ok('interact', { action: 'click', selector: { css: '#open-window' } });
      const [place] = clicked.opened_tabs as number[];
      await ok('navigate', { tab: place ?? -1 });
      await call('execute_script', { script: 'setTimeout(() => window.close(), 0); return 1;' });
      const seen: string[] = [];
      const gone = await poll(
        async () => {
          const answer = await call('extract', { selector: { css: 'h1' } });
          seen.push(`${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
          return answer.status === 404 ? answer : undefined;
        },
        5_000,
        100,
      );
      expect(gone, seen.join('\n')).toBeDefined();
      expect(JSON.stringify(gone?.body)).toContain(
        'The tab the browser was on is closed; list them with navigate {action: \\"tabs\\"}',
      );
      // Still the browser, with its other tab: asking whether it runs ended it ("no such window").
      expect((await ok('current_workspace')).browser).toMatchObject({ alive: true });
      const left = await tabs();
      expect(left.map((tab) => [new URL(tab.url).pathname, tab.active])).toEqual([['/tabs.html', true]]);
      expect((await ok('extract', { selector: { css: 'h1' } })).value).toBe('Tabs');
    });

    // The act reads nothing in a tab it opened: WebDriver would wait for the page's script, and
    // a page that never yields would hold the act until its deadline (and lose the agent's tab).
    it('answers an act that opened a tab whose page holds its thread, at once, on its own tab', async () => {
      await ok('navigate', { url: `${site}/hostile/opens-busy-tab.html` });
      const started = Date.now();
      const clicked = await call('interact', { action: 'click', selector: { css: '#busy-tab-link' } });
      const took = Date.now() - started;
      expect(clicked.status, JSON.stringify(clicked.body).slice(0, 300)).toBe(200);
      expect(clicked.body).toMatchObject({ url: `${site}/hostile/opens-busy-tab.html`, opened_tabs: [1] });
      expect(took).toBeLessThan(5_000);
      expect((await ok('extract', { selector: { css: 'h1' } })).value).toBe('Opens a busy tab');
    });

    it('refuses a tab with a url or a history move, saying what to pass', async () => {
      const both = await call('navigate', { tab: 0, url: `${site}/tabs.html` });
      expect(both.status).toBe(400);
      expect(JSON.stringify(both.body)).toContain('Pass exactly one of url');
      const named = await call('navigate', { action: 'new_tab', tab: 1 });
      expect(named.status).toBe(400);
      expect(JSON.stringify(named.body)).toContain('new_tab opens a tab');
    });
  });
}
