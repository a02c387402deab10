import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useToolsBrowser } from '../helpers/tools-browser.js';

type Answer = Record<string, unknown>;

const { site, call, ok, script, text, value, until } = useToolsBrowser();

describe('interact', () => {
  beforeEach(async () => {
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('clicks a link', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const clicked = await ok('interact', { action: 'click', selector: { css: '#to-table' } });
    // Where the click left the browser, and nothing the caller already said (what, to which element).
    expect(clicked).toEqual({ url: `${site}/table.html`, title: 'Data table' });
    await until("location.pathname === '/table.html'");
    await ok('navigate', { url: `${site}/login.html` });
  });

  // chromedriver may answer a click, and the page read right after it, before the navigation the
  // click started has reached it: an agent told it is still on the login page submits again.
  it('answers the page a submit button led to, never the page it left', async () => {
    const answered: string[] = [];
    // Without the wait, 1 or 2 of the 30 clicks on the busy page answered the page it left (2 runs in 3).
    for (let i = 0; i < 40; i++) {
      // …and on the login page, and on one whose server takes 600 ms to answer the form.
      const page = i % 10 === 9 ? 'slow-login.html' : i % 4 === 3 ? 'login.html' : 'busy-submit.html';
      await ok('navigate', { url: `${site}/${page}` });
      const clicked = await ok('interact', { action: 'click', selector: { css: '#submit' } });
      answered.push(`${new URL(String(clicked.url)).pathname} ${String(clicked.title)}`);
    }
    expect(answered.filter((a) => !/^(\/slow)?\/welcome\.html Welcome$/.test(a))).toEqual([]);
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('answers a click at once on a page whose timers never fire', async () => {
    await ok('navigate', { url: `${site}/fake-timers.html` });
    // Waiting on the page's own setTimeout held this answer until the script timeout (48 s).
    const started = Date.now();
    const stayed = await ok('interact', { action: 'click', selector: { css: '#stay' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([new URL(String(stayed.url)).pathname, stayed.title]).toEqual(['/fake-timers.html', 'Fake timers']);
    const clicked = await ok('interact', { action: 'click', selector: { css: '#next' } });
    expect([new URL(String(clicked.url)).pathname, clicked.title]).toEqual(['/welcome.html', 'Welcome']);
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('answers the page from a page that breaks the navigation watcher', async () => {
    const watcher = `${site}/hostile/breaks-watcher.html`;
    expect((await ok('navigate', { url: watcher })).title).toBe('Breaks the watcher');
    const clicked = await ok('interact', { action: 'click', selector: { css: '#submit' } });
    expect([new URL(String(clicked.url)).pathname, clicked.title]).toEqual(['/welcome.html', 'Welcome']);
    await ok('navigate', { url: watcher });
    const pressed = await ok('press_key', { key: 'Enter', selector: { css: '#email' } });
    expect([new URL(String(pressed.url)).pathname, pressed.title]).toEqual(['/welcome.html', 'Welcome']);
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('answers an act on a page that fakes being left behind within the grace, not the settle time', async () => {
    await ok('navigate', { url: `${site}/hostile/breaks-watcher.html` });
    const started = Date.now();
    const stayed = await ok('interact', { action: 'click', selector: { css: '#stay' } });
    // 2 s of grace (browser/page-state.ts), where the settle bound is 10 s: the page slows only its own acts.
    expect(Date.now() - started).toBeLessThan(6_000);
    expect([new URL(String(stayed.url)).pathname, stayed.title]).toEqual(['/hostile/breaks-watcher.html', 'Stayed']);
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('double-clicks, right-clicks and hovers, as the page sees it', async () => {
    await script(`
      window.__events = [];
      const h1 = document.querySelector('h1');
      for (const type of ['dblclick', 'contextmenu', 'mouseover']) {
        h1.addEventListener(type, (e) => { if (type === 'contextmenu') e.preventDefault(); window.__events.push(type); });
      }`);
    await ok('interact', { action: 'double_click', selector: { xpath: '//h1' } });
    await ok('interact', { action: 'right_click', selector: { css: 'h1' } });
    await ok('interact', { action: 'hover', selector: { css: '#email' } });
    await ok('interact', { action: 'hover', selector: { css: 'h1' } });
    const events = await script<string[]>('return window.__events');
    expect(events).toContain('dblclick');
    expect(events).toContain('contextmenu');
    expect(events).toContain('mouseover');
  });

  it('selects an option by its text and by its value', async () => {
    await ok('interact', { action: 'select', selector: { css: '#country' }, option: 'Germany' });
    expect(await value('#country')).toBe('de');
    await ok('interact', { action: 'select', selector: { css: '#country' }, option: 'fr' });
    expect(await value('#country')).toBe('fr');
    const missing = await call('interact', { action: 'select', selector: { css: '#country' }, option: 'Atlantis' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('Atlantis');
    expect(await value('#country')).toBe('fr');
  });

  it('refuses to select in an element that is not a select, and the server lives on', async () => {
    const refused = await call('interact', { action: 'select', selector: { css: '#email' }, option: 'fr' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('not a <select>');
    expect(await text('h1')).toBe('Login');
  });

  it('checks and unchecks the checkbox, idempotently', async () => {
    const checked = () => script<boolean>("return document.getElementById('remember').checked");
    await ok('interact', { action: 'check', selector: { css: '#remember' } });
    expect(await checked()).toBe(true);
    await ok('interact', { action: 'check', selector: { css: '#remember' } });
    expect(await checked()).toBe(true);
    await ok('interact', { action: 'uncheck', selector: { css: '#remember' } });
    expect(await checked()).toBe(false);
    await ok('interact', { action: 'uncheck', selector: { css: '#remember' } });
    expect(await checked()).toBe(false);
  });

  it('says so when a check or a select does not take, instead of answering done', async () => {
    const notBox = await call('interact', { action: 'check', selector: { css: '#email' } });
    expect(notBox.status).toBe(400);
    expect((notBox.body.error as Answer).message).toContain('css=#email is not a checkbox or radio button');
    // A page that undoes the click: the box stays as it was.
    await script("document.getElementById('remember').addEventListener('click', (e) => e.preventDefault())");
    const undone = await call('interact', { action: 'check', selector: { css: '#remember' } });
    expect((undone.body.error as Answer).message).toContain('css=#remember stayed unchecked');
    await script('document.querySelector(\'#country option[value="de"]\').disabled = true');
    const disabled = await call('interact', { action: 'select', selector: { css: '#country' }, option: 'Germany' });
    expect(disabled.status).toBe(400);
    expect((disabled.body.error as Answer).message).toContain('The option "Germany" of css=#country is disabled');
    expect(await value('#country')).not.toBe('de');
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('clears a field', async () => {
    await ok('write', { selector: { css: '#email' }, text: 'to-be-cleared@example.com' });
    await ok('interact', { action: 'clear', selector: { css: '#email' } });
    expect(await value('#email')).toBe('');
  });

  it('focuses a field, and refuses an element that cannot take focus', async () => {
    await ok('interact', { action: 'focus', selector: { css: '#password' } });
    expect(await script('return document.activeElement.id')).toBe('password');
    const refused = await call('interact', { action: 'focus', selector: { css: 'h1' } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('cannot take focus');
    expect(await script('return document.activeElement.id')).toBe('password');
  });

  it('refuses to clear an element that is not a field', async () => {
    const refused = await call('interact', { action: 'clear', selector: { css: 'h1' } });
    expect(refused.status).toBe(400);
    expect(await text('h1')).toBe('Login');
  });

  it('scrolls an element into view', async () => {
    await ok('navigate', { url: `${site}/heavy.html` });
    const inView =
      "const r = document.getElementById('section-63').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;";
    expect(await script(inView)).toBe(false);
    await ok('interact', { action: 'scroll_into_view', selector: { css: '#section-63' } });
    expect(await script(inView)).toBe(true);
  });

  it('answers 404 with the remedy for an element that never appears', async () => {
    const missing = await call('interact', { action: 'click', selector: { css: '#nothing-here' }, wait_timeout: 0 });
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain('outline');
  });
});

describe('press_key', () => {
  beforeAll(async () => {
    await ok('navigate', { url: `${site}/keys.html` });
  });

  it('presses Enter on a selector', async () => {
    const pressed = await ok('press_key', { key: 'Enter', selector: { css: '#keys' } });
    expect(pressed.pressed).toBe('Enter');
    expect(await text('#last-key')).toBe('Enter');
  });

  it('presses ArrowDown on the focused element', async () => {
    await ok('interact', { action: 'focus', selector: { css: '#keys' } });
    await ok('press_key', { key: 'ArrowDown' });
    expect(await text('#last-key')).toBe('ArrowDown');
  });

  it('holds modifiers while pressing', async () => {
    const pressed = await ok('press_key', { key: 'a', modifiers: ['Control'], selector: { css: '#keys' } });
    expect(pressed.pressed).toBe('Control+a');
    expect(await text('#last-key')).toBe('Control+a');
    await ok('press_key', { key: 'ArrowLeft', modifiers: ['Shift', 'Alt'], selector: { css: '#keys' } });
    expect(await text('#last-key')).toBe('Alt+Shift+ArrowLeft');
  });

  it('refuses a selector that cannot take the key, instead of pressing it elsewhere', async () => {
    await ok('write', { selector: { css: '#keys' }, text: 'kept' });
    await script("document.getElementById('keys').style.display = 'none'");
    const refused = await call('press_key', { key: 'Backspace', selector: { css: '#keys' } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('cannot take focus');
    expect(await value('#keys')).toBe('kept');
    await ok('navigate', { action: 'refresh' });
  });

  it('refuses an unknown key name with the fix', async () => {
    const bad = await call('press_key', { key: 'NotAKey', selector: { css: '#keys' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('W3C key name');
  });
});
