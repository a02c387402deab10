import { beforeAll, describe, expect, it } from 'vitest';
import { FRAME_GONE, FRAME_GONE_WHILE_ACTING, FRAME_LEFT_BY_ACT } from '../../src/browser/frames.js';
import { poll } from '../../src/poll.js';
import { gridIdOf } from '../helpers/server.js';
import { TOOLS_WORKSPACE, useToolsBrowser } from '../helpers/tools-browser.js';
import type { ToolAnswer } from '../helpers/tools.js';

type Answer = Record<string, unknown>;

const browser = useToolsBrowser();
const { site, call, ok, script, text, workspace } = browser;

describe('frame', () => {
  /**
   * The first answer that says the entered frame is gone: the page takes it away on its own
   * time, and until then a read in it finds no h1 (nor does one the driver ran as it went).
   */
  async function frameGoneAnswer(): Promise<ToolAnswer | undefined> {
    return poll(
      async () => {
        const read = await call('extract', { selector: { css: 'h1' }, wait_timeout: 0 });
        return (read.body.error as Answer | undefined)?.message === FRAME_GONE ? read : undefined;
      },
      10_000,
      50,
    );
  }

  it('enters an iframe, acts in it, and leaves to the parent and the top', async () => {
    await ok('navigate', { url: `${site}/frame.html` });
    expect((await ok('frame', { action: 'enter', selector: { css: '#inner' } })).frame).toBe('enter');
    await ok('interact', { action: 'click', selector: { css: '#inner-button' } });
    expect(await text('#inner-button')).toBe('Clicked');
    await ok('frame', { action: 'parent' });
    expect(await text('h1')).toBe('Frames');
    await ok('frame', { action: 'enter', selector: { xpath: '//iframe' } });
    expect(await text('#inner-text')).toBe('Inside the frame');
    await ok('frame', { action: 'top' });
    expect(await text('h1')).toBe('Frames');
  });

  it('answers the top page from inside a frame, same-origin or cross-origin', async () => {
    const top = { url: `${site}/frame.html`, title: 'Frames' };
    await ok('navigate', { url: top.url });
    expect(await ok('frame', { action: 'enter', selector: { css: '#inner' } })).toMatchObject(top);
    expect(await ok('interact', { action: 'click', selector: { css: '#inner-button' } })).toMatchObject(top);
    await ok('frame', { action: 'top' });
    // localhost is another origin than 127.0.0.1: the page cannot read the top from there.
    await script(
      // Entered once loaded: a frame entered at its first about:blank may be left behind when it navigates cross-origin.
      "const f = document.createElement('iframe'); f.id = 'cross'; f.src = arguments[0]; document.body.append(f); return new Promise((r) => f.addEventListener('load', () => r(true)));",
      [`${site.replace('127.0.0.1', 'localhost')}/inner.html`],
    );
    expect(await ok('frame', { action: 'enter', selector: { css: '#cross' } })).toMatchObject(top);
    expect(await ok('interact', { action: 'click', selector: { css: '#inner-button' } })).toMatchObject(top);
    expect(await script('return location.hostname')).toBe('localhost');
    await ok('frame', { action: 'top' });
  });

  // Firefox answered "no such window" (its remedy, a new browser, lost every login) and
  // Chromium ran the next calls on the top page without a word.
  it('says the entered frame is gone, once, and keeps the browser on the top page', async () => {
    const held = await gridIdOf(browser.running(), TOOLS_WORKSPACE);
    await ok('navigate', { url: `${site}/frame.html` });
    await ok('frame', { action: 'enter', selector: { css: '#inner' } });
    // Later than this call, which looks once more after its script: a frame removed during the
    // call is said by the call itself (the test below).
    await script("const p = window.parent; p.setTimeout(() => p.document.getElementById('inner').remove(), 300);");
    const gone = await frameGoneAnswer();
    expect(gone, 'the page never removed the frame').toBeDefined();
    expect(gone?.status).toBe(404);
    expect((gone?.body.error as Answer).message).toBe(FRAME_GONE);
    expect(await text('h1')).toBe('Frames');
    // A link out of the frame to the top: the click is done, and the call after it told.
    await ok('navigate', { url: `${site}/frame.html` });
    await ok('frame', { action: 'enter', selector: { css: '#inner' } });
    await script(
      `document.body.insertAdjacentHTML('beforeend', '<a id="out" href="/login.html" target="_top">out</a>');`,
    );
    // chromedriver's click waits for the top's navigation, and its answer says the frame went;
    // geckodriver's waits for the frame's navigations only, and the call after it is told.
    const clicked = await ok('interact', { action: 'click', selector: { css: '#out' } });
    if (clicked.frame_gone === undefined) {
      expect((await frameGoneAnswer())?.status, 'no call was told the frame went').toBe(404);
    } else {
      expect(clicked).toMatchObject({ title: 'Login', frame_gone: FRAME_LEFT_BY_ACT });
    }
    expect(await ok('interact', { action: 'focus', selector: { css: '#email' } })).toMatchObject({ title: 'Login' });
    expect(await gridIdOf(browser.running(), TOOLS_WORKSPACE)).toBe(held);
  });

  /**
   * Enters frame.html's frame, where #act (a button, and a field) removes the frame as the
   * page reacts to it, and counts each reaction in the top page: `top.runs` in the frame,
   * `top.topRuns` on the top page's own #act, where an act repeated after the frame left lands.
   */
  async function enterSelfRemovingFrame(): Promise<void> {
    await ok('navigate', { url: `${site}/frame.html` });
    await script(`
      const onTop = () => { top.topRuns = (top.topRuns || 0) + 1; };
      document.body.insertAdjacentHTML('beforeend', '<button id="act" type="button">Act</button><input id="act-field">');
      for (const id of ['act', 'act-field']) document.getElementById(id).addEventListener(id === 'act' ? 'click' : 'keydown', onTop);
      const frame = document.getElementById('inner');
      const inner = frame.contentDocument;
      inner.body.insertAdjacentHTML('beforeend', '<button id="act" type="button">Act</button><input id="act-field">');
      const once = () => { top.runs = (top.runs || 0) + 1; frame.remove(); };
      inner.getElementById('act').addEventListener('click', once);
      inner.getElementById('act-field').addEventListener('keydown', once);
    `);
    await ok('frame', { action: 'enter', selector: { css: '#inner' } });
  }

  async function runsCounted(): Promise<unknown> {
    return script('return [top.runs ?? 0, top.topRuns ?? 0]');
  }

  // chromedriver ran a script whose frame went away under it a second time, on the top page.
  it('runs a script once when it removes its own frame, and answers from the top page', async () => {
    const top = { url: `${site}/frame.html`, title: 'Frames' };
    const scripts = [
      "top.runs = (top.runs || 0) + 1; window.frameElement.remove(); return 'ran';",
      // the page removes the frame while the script waits on its promise
      "top.runs = (top.runs || 0) + 1; const p = window.parent; p.setTimeout(() => p.document.getElementById('inner').remove(), 50); return new Promise((r) => setTimeout(() => r('ran'), 500));",
    ];
    for (const source of scripts) {
      await enterSelfRemovingFrame();
      const ran = await call('execute_script', { script: source });
      expect(ran.status, JSON.stringify(ran.body)).toBe(200);
      expect(ran.body).toEqual({ ...top, result: null, frame_gone: FRAME_LEFT_BY_ACT });
      // the next call acts on the top page, and was not told the frame is gone a second time
      expect(await runsCounted()).toEqual([1, 0]);
    }
  });

  // A click ran once either way; the answer said nothing (Chromium) or that the call did nothing
  // (Firefox, typing: 'no such window'), and typing on Chromium failed as a bug (500).
  it('clicks, presses or types once when its frame goes away with it, and says so', async () => {
    const acts: [string, Answer][] = [
      ['interact', { action: 'click', selector: { css: '#act' } }],
      ['press_key', { key: 'a', selector: { css: '#act-field' } }],
      ['write', { selector: { css: '#act-field' }, text: 'abc' }],
    ];
    for (const [tool, args] of acts) {
      await enterSelfRemovingFrame();
      const acted = await call(tool, args);
      if (acted.status === 200) {
        expect(acted.body, tool).toMatchObject({ url: `${site}/frame.html`, frame_gone: FRAME_LEFT_BY_ACT });
      } else {
        // geckodriver fails the command the frame left under: what it did stays done, and the answer says so
        expect([tool, acted.status, acted.body]).toEqual([
          tool,
          404,
          { error: { code: 'not_found', message: FRAME_GONE_WHILE_ACTING } },
        ]);
      }
      expect([tool, await runsCounted()]).toEqual([tool, [1, 0]]);
    }
  });

  it('refuses to enter an element that is not a frame', async () => {
    const bad = await call('frame', { action: 'enter', selector: { css: 'h1' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('iframe');
  });
});

describe('dialog', () => {
  beforeAll(async () => {
    await ok('navigate', { url: `${site}/dialogs.html` });
  });

  it('answers the page a navigation reached when it opens an alert as it loads', async () => {
    const went = await ok('navigate', { url: `${site}/alert-on-load.html` });
    expect(went).toMatchObject({ url: `${site}/alert-on-load.html`, dialog: { message: 'Welcome' } });
    expect(await workspace()).toMatchObject({ url: `${site}/alert-on-load.html` });
    await ok('dialog', { action: 'accept' });
    await ok('navigate', { url: `${site}/dialogs.html` });
  });

  it('reports an alert on the call that opened it, and accepts it', async () => {
    const clicked = await ok('interact', { action: 'click', selector: { css: '#alert' } });
    expect(clicked.dialog).toEqual({ message: 'Hello alert' });
    expect(clicked.url).toBe(`${site}/dialogs.html`);
    expect(await ok('dialog', { action: 'accept' })).toMatchObject({ message: 'Hello alert', answered: 'accept' });
    expect(await text('h1')).toBe('Dialogs');
  });

  it('while a dialog is open, other calls say to answer it first', async () => {
    await ok('interact', { action: 'click', selector: { css: '#alert' } });
    const blocked = await call('extract', { selector: { css: 'h1' } });
    expect(blocked.status).toBe(400);
    expect(JSON.stringify(blocked.body)).toContain('dialog tool');
    await ok('dialog', { action: 'dismiss' });
  });

  it('while a dialog is open, a tool it blocks is refused before it acts', async () => {
    await ok('interact', { action: 'click', selector: { css: '#alert' } });
    // Reading the missing file is the handler's first step, before any WebDriver command.
    const blocked = await call('upload_file', { selector: { css: 'input' }, file: 'workspace://files/missing.txt' });
    expect(blocked.status).toBe(400);
    expect((blocked.body.error as { message: string }).message).toContain('A page dialog is open ("Hello alert")');
    await ok('dialog', { action: 'dismiss' });
    const unblocked = await call('upload_file', { selector: { css: 'input' }, file: 'workspace://files/missing.txt' });
    expect(unblocked.status).toBe(404);
  });

  it('accepts and dismisses a confirm', async () => {
    const clicked = await ok('interact', { action: 'click', selector: { css: '#confirm' } });
    expect(clicked.dialog).toEqual({ message: 'Sure?' });
    expect(await ok('dialog', { action: 'accept' })).toMatchObject({ message: 'Sure?', answered: 'accept' });
    expect(await text('#result')).toBe('true');
    await ok('interact', { action: 'click', selector: { css: '#confirm' } });
    await ok('dialog', { action: 'dismiss' });
    expect(await text('#result')).toBe('false');
  });

  it('answers a prompt with text, or dismisses it', async () => {
    const clicked = await ok('interact', { action: 'click', selector: { css: '#prompt' } });
    expect(clicked.dialog).toEqual({ message: 'Your name?' });
    expect(await ok('dialog', { action: 'accept', text: 'Ada Lovelace' })).toMatchObject({ message: 'Your name?' });
    expect(await text('#result')).toBe('Ada Lovelace');
    await ok('interact', { action: 'click', selector: { css: '#prompt' } });
    await ok('dialog', { action: 'dismiss' });
    expect(await text('#result')).toBe('null');
  });

  it('refuses text for an alert, and the alert stays open to answer', async () => {
    await ok('interact', { action: 'click', selector: { css: '#alert' } });
    const refused = await call('dialog', { action: 'accept', text: 'not a prompt' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('Only a prompt takes text');
    expect(await ok('dialog', { action: 'accept' })).toMatchObject({ message: 'Hello alert' });
  });

  it('waits briefly for an alert a click opens later', async () => {
    await ok('interact', { action: 'click', selector: { css: '#async-alert' } });
    expect(await ok('dialog', { action: 'accept' })).toMatchObject({ message: 'Later', answered: 'accept' });
  });

  it('says so when no dialog is open', async () => {
    const none = await call('dialog', { action: 'accept' });
    expect(none.status).toBe(404);
    expect(JSON.stringify(none.body)).toContain('No dialog is open');
  });
});
