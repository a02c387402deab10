import { beforeAll, describe, expect, it } from 'vitest';
import { TRUNCATION_MARK } from '../../src/browser/reading.js';
import { testBrowser } from '../helpers/server.js';
import { pngSize, TOOLS_WORKSPACE, useToolsBrowser } from '../helpers/tools-browser.js';

type Answer = Record<string, unknown>;

const browser = useToolsBrowser();
const { site, call, ok, script, text, value, until } = browser;

describe('execute_script', () => {
  it('answers the JSON return value and takes args', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    expect(await script('return 6 * 7')).toBe(42);
    expect(await script('return arguments[0] + arguments[1].n', ['x', { n: 1 }])).toBe('x1');
    expect(await script("return {list: [1, 'two', true], none: null, title: document.title}")).toEqual({
      list: [1, 'two', true],
      none: null,
      title: 'Login',
    });
    expect(await script('document.title')).toBeNull();
    expect(await script("return document.querySelectorAll('input')")).toEqual(['[element]', '[element]', '[element]']);
    // a promise the script returns is awaited, and its value measured once it settles
    expect(await script("return new Promise((resolve) => setTimeout(() => resolve('settled'), 20))")).toBe('settled');
    expect(await script('// ends in a comment\nreturn 1 // no newline after')).toBe(1);
  });

  it('answers 400 with the error of a script that throws', async () => {
    const thrown = await call('execute_script', { script: "throw new Error('boom-7f3a')" });
    expect(thrown.status).toBe(400);
    expect(JSON.stringify(thrown.body)).toContain('boom-7f3a');
  });

  it('refuses an answer over the limit, a promised one too, and runs the next script', async () => {
    for (const source of ["return 'x'.repeat(2000000)", "return Promise.resolve('é'.repeat(600000))"]) {
      const over = await call('execute_script', { script: source });
      expect(over.status, source).toBe(400);
      expect(JSON.stringify(over.body), source).toContain('over the 1000000-byte limit of execute_script');
    }
    expect(await script('return 2 + 2')).toBe(4);
  });

  it('answers a page that breaks the driver’s scripts with what it did, never a 500', async () => {
    const went = await call('navigate', { url: `${site}/hostile/breaks-json.html` });
    if (testBrowser() === 'firefox') {
      // geckodriver runs scripts in a sandbox the page's built-ins do not reach.
      expect(went.status).toBe(200);
    } else {
      expect(went.status, JSON.stringify(went.body)).toBe(502);
      expect((went.body.error as Answer).message).toBe(
        "This page breaks the scripts the browser's driver runs in it (it replaced a built-in such as JSON.stringify), so it cannot be read or acted on; navigate to another page.",
      );
      expect((await call('extract', { selector: { css: 'h1' } })).status).toBe(502);
    }
    await ok('navigate', { url: `${site}/login.html` });
    expect(await text('h1')).toBe('Login');
  });

  it('says the page navigated away under a pending promise, and names where the browser went', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    // chromedriver answers "timeout … aborted by navigation", geckodriver "Document was unloaded".
    const left = await call('execute_script', {
      script: "location.href = '/table.html'; return new Promise(() => {})",
    });
    expect(left.status, JSON.stringify(left.body)).toBe(400);
    expect((left.body.error as Answer).message).toBe(
      'The page navigated away while the script waited on its promise, so the script has no answer; the browser is on the next page now: read it with outline, or return before the page leaves.',
    );
    await until("location.pathname === '/table.html' && document.readyState === 'complete'");
    // An assert whose script is pending when the page leaves asks again on the page it led to.
    await ok('navigate', { url: `${site}/login.html` });
    await ok('assert', {
      script:
        "if (location.pathname === '/login.html') { location.href = '/table.html'; return new Promise(() => {}); } return document.title === 'Data table'",
      timeout: 10,
      message: 'the table page never came',
    });
  });
});

describe('extract', () => {
  beforeAll(async () => {
    await ok('navigate', { url: `${site}/login.html` });
  });

  it('reads text, html, value and an attribute', async () => {
    expect(await text('h1')).toBe('Login');
    const html = (await ok('extract', { selector: { css: 'h1' }, what: 'html' })).value;
    expect(html).toBe('<h1>Login</h1>');
    await ok('write', { selector: { css: '#email' }, text: 'read@example.com' });
    expect(await value('#email')).toBe('read@example.com');
    const href = await ok('extract', { selector: { css: '#to-table' }, what: 'attribute', attribute: 'href' });
    expect(href.value).toBe('/table.html');
    expect((await ok('extract', { selector: { xpath: '//label[@for="email"]' } })).value).toBe('Email');
    const page = (await ok('extract', {})).value as string;
    expect(page).toContain('Login');
    expect(page).toContain('Remember me');
  });

  it('reads every match with all', async () => {
    await ok('navigate', { url: `${site}/table.html` });
    const rows = (await ok('extract', { selector: { css: '#data tbody tr td:nth-child(2)' }, all: true }))
      .values as string[];
    const expected = await script<string[]>(
      "return [...document.querySelectorAll('#data tbody tr td:nth-child(2)')].map((td) => td.textContent)",
    );
    expect(rows).toHaveLength(50);
    expect(rows).toEqual(expected);
    const none = await ok('extract', { selector: { css: '.no-such-row' }, all: true, wait_timeout: 0 });
    expect(none.values).toEqual([]);
  });

  it('marks a truncated answer past max_chars', async () => {
    await ok('navigate', { url: `${site}/table.html` });
    const cut = await ok('extract', { selector: { css: '#data' }, max_chars: 100 });
    expect(cut.truncated).toBe(true);
    const read = cut.value as string;
    expect(read.endsWith(TRUNCATION_MARK)).toBe(true);
    expect(read.length).toBe(100 + TRUNCATION_MARK.length);
    const full = (await ok('extract', { selector: { css: '#data' }, max_chars: 100_000 })).value as string;
    expect(full.startsWith(read.slice(0, 100))).toBe(true);
    expect(full).toContain('Item 50');
  });

  it('navigates first with url, only when the browser is elsewhere', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const read = await ok('extract', { url: `${site}/table.html`, selector: { css: 'h1' } });
    expect(read.value).toBe('Data table');
    await script('window.__stay = true;');
    await ok('extract', { url: `${site}/table.html`, selector: { css: 'h1' } });
    expect(await script('return window.__stay === true')).toBe(true);
  });

  it('waits for an element that appears later', async () => {
    await ok('navigate', { url: `${site}/slow.html` });
    expect(await ok('extract', { selector: { css: '#slow' }, wait_timeout: 10 })).toMatchObject({
      value: 'Finally here',
    });
  });
});

describe('outline', () => {
  it('maps every field and button of the heavy form with a selector that works, in under 10,900 bytes', async () => {
    await ok('navigate', { url: `${site}/heavy.html` });
    const answer = await ok('outline');
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThan(10_900);
    expect(answer).toMatchObject({ url: `${site}/heavy.html`, title: 'Heavy page' });
    const map = answer.outline as string;
    expect(map).toContain('# Heavy page');

    // Every field and button of #profile, as the page itself counts them, has a line: kind "label" selector.
    const ids = await script<string[]>(
      "return [...document.querySelectorAll('#profile input, #profile select, #profile textarea, #profile button')].map((e) => e.id)",
    );
    expect(ids.length).toBe(11);
    const listed = new Map<string, string>();
    for (const line of map.split('\n')) {
      const control = /^\s*(?:text|email|tel|date|select|textarea|checkbox|button) "(.*)" (.+)$/.exec(line);
      if (control) {
        listed.set(control[2] ?? '', control[1] ?? '');
      }
    }
    const resolved = await script<(string | null)[]>(
      'return arguments[0].map((s) => { const m = document.querySelectorAll(s); return m.length === 1 ? m[0].id : null; })',
      [[...listed.keys()]],
    );
    expect(ids.every((id) => resolved.includes(id))).toBe(true);

    const selectorOf = (id: string) => [...listed.keys()][resolved.indexOf(id)] ?? '';
    expect(listed.get(selectorOf('full-name'))).toBe('Full name');
    await ok('write', { selector: { css: selectorOf('full-name') }, text: 'Grace Hopper' });
    expect(await value('#full-name')).toBe('Grace Hopper');
    await ok('interact', { action: 'select', selector: { css: selectorOf('heavy-country') }, option: 'Italy' });
    expect(await value(selectorOf('heavy-country'))).toBe('it');
    await ok('interact', { action: 'check', selector: { css: selectorOf('newsletter') } });
    expect(await script("return document.getElementById('newsletter').checked")).toBe(true);
    expect(await text(selectorOf('cancel'))).toBe('Cancel');
  });

  it('outlines only the part a selector names', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const part = (await ok('outline', { selector: { css: '#login' } })).outline as string;
    expect(part).toContain('#email');
    expect(part).not.toContain('#to-table');
  });
});

describe('screenshot', () => {
  beforeAll(async () => {
    await ok('navigate', { url: `${site}/heavy.html` });
  });

  it('takes the viewport', async () => {
    const shot = await ok('screenshot');
    expect(shot.mime_type).toBe('image/png');
    expect(shot.bytes).toBe(Buffer.from(shot.data as string, 'base64').byteLength);
    const [w, h] = await script<[number, number]>(
      'return [innerWidth * devicePixelRatio, innerHeight * devicePixelRatio]',
    );
    expect(pngSize(shot.data as string)).toEqual({ width: w, height: h });
  });

  it('takes the full page, taller than the viewport', async () => {
    const viewport = pngSize((await ok('screenshot')).data as string);
    const full = pngSize((await ok('screenshot', { full_page: true })).data as string);
    const pageHeight = await script<number>('return document.documentElement.scrollHeight * devicePixelRatio');
    expect(full.height).toBeGreaterThan(viewport.height);
    expect(full.height).toBe(pageHeight);
  });

  it('takes one element', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const [w, h] = await script<[number, number]>(
      "const r = document.getElementById('login').getBoundingClientRect(); return [r.width * devicePixelRatio, r.height * devicePixelRatio]",
    );
    const shot = pngSize((await ok('screenshot', { selector: { css: '#login' } })).data as string);
    expect(Math.abs(shot.width - w)).toBeLessThanOrEqual(1);
    expect(Math.abs(shot.height - h)).toBeLessThanOrEqual(1);
  });

  it('scales one element down to width, whole even when taller than the window', async () => {
    await ok('navigate', { url: `${site}/table.html` });
    const [w, h, viewHeight] = await script<[number, number, number]>(
      "const r = document.getElementById('data').getBoundingClientRect(); return [r.width, r.height, innerHeight]",
    );
    expect(h).toBeGreaterThan(viewHeight);
    const shot = pngSize((await ok('screenshot', { selector: { css: '#data' }, width: 100 })).data as string);
    expect(shot.width).toBe(100);
    // Within 1%: the Grid rounds the element's rect to whole pixels before scaling.
    expect(Math.abs(shot.height - (h * 100) / w)).toBeLessThanOrEqual((h * 100) / w / 100);
  });

  it('refuses an element with no size', async () => {
    const refused = await call('screenshot', { selector: { css: 'head' } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('no size');
  });

  it('scales down to width', async () => {
    const shot = pngSize((await ok('screenshot', { width: 400 })).data as string);
    const viewport = pngSize((await ok('screenshot')).data as string);
    expect(shot.width).toBe(400);
    expect(Math.abs(shot.height - Math.round((viewport.height * 400) / viewport.width))).toBeLessThanOrEqual(1);
  });
});

describe('print', () => {
  /** The saved file's bytes, read back over the REST tree of Files. */
  async function savedBytes(name: string): Promise<Buffer> {
    const response = await fetch(`${browser.running().url}/files/${encodeURIComponent(name)}`, {
      headers: { 'X-Workspace': TOOLS_WORKSPACE },
    });
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  }

  it('saves the page as a PDF in Files', async () => {
    await ok('navigate', { url: `${site}/table.html` });
    const pdf = await ok('print', { filename: 'table' });
    expect(pdf).toMatchObject({ mime_type: 'application/pdf', name: 'table.pdf' });
    expect(pdf.uri).toEqual(expect.stringContaining('table.pdf'));
    const bytes = await savedBytes(pdf.name as string);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.bytes).toBe(bytes.byteLength);
    const landscape = await ok('print', { landscape: true, background: true });
    expect((await savedBytes(landscape.name as string)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});

describe('assert', () => {
  it('passes for present, absent, visible and hidden on a page that changes', async () => {
    await ok('navigate', { url: `${site}/slow.html` });
    expect(
      await ok('assert', { selector: { css: '#slow' }, state: 'present', timeout: 10, message: 'slow shows' }),
    ).toMatchObject({ passed: true });
    expect(
      await ok('assert', { selector: { css: '#gone' }, state: 'absent', timeout: 10, message: 'gone goes' }),
    ).toMatchObject({ passed: true });
    expect(
      await ok('assert', { selector: { css: '#slow' }, state: 'visible', message: 'slow is visible' }),
    ).toMatchObject({ passed: true });
    expect(
      await ok('assert', { selector: { css: '#gone' }, state: 'hidden', message: 'gone is hidden' }),
    ).toMatchObject({ passed: true });
    await script("document.getElementById('slow').style.display = 'none'");
    expect(
      await ok('assert', { selector: { css: '#slow' }, state: 'hidden', message: 'slow is hidden' }),
    ).toMatchObject({ passed: true });
  });

  it('passes a script condition, and holds it for stable_for', async () => {
    await ok('navigate', { url: `${site}/slow.html` });
    const held = await ok('assert', {
      script: "return document.getElementById('slow') !== null",
      timeout: 10,
      stable_for: 300,
      message: 'slow stays',
    });
    expect(held.passed).toBe(true);
    expect(held.waited_ms).toBeGreaterThanOrEqual(300);
  });

  it('fails with the caller message when the condition never holds', async () => {
    await ok('navigate', { url: `${site}/slow.html` });
    const failed = await call('assert', {
      selector: { css: '#never' },
      state: 'present',
      timeout: 1,
      message: 'the never element should show',
    });
    expect(failed.status).toBe(504);
    expect((failed.body.error as Answer).message).toContain('the never element should show');
    const visible = await call('assert', {
      selector: { css: 'h1' },
      state: 'hidden',
      timeout: 0.5,
      message: 'heading hides',
    });
    expect(visible.status).toBe(504);
    expect((visible.body.error as Answer).message).toContain('heading hides');
  });
});
