import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOOLS_WORKSPACE, useToolsBrowser } from '../helpers/tools-browser.js';

type Answer = Record<string, unknown>;

const browser = useToolsBrowser();
const { site, call, ok, script, text, value, workspace, until } = browser;

describe('write', () => {
  it('types into a field and reads the value back', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    expect((await ok('write', { selector: { css: '#email' }, text: 'first@example.com' })).value).toBe(
      'first@example.com',
    );
    expect((await ok('write', { selector: { css: '#email' }, text: 'second@example.com' })).value).toBe(
      'second@example.com',
    );
    expect((await ok('write', { selector: { css: '#email' }, text: '.org', clear: false })).value).toBe(
      'second@example.com.org',
    );
    expect(await value('#email')).toBe('second@example.com.org');
  });

  it('finds the field by XPath too, and says so when a selector is not valid or matches no field', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    await script("document.getElementById('email').value = 'old@example.com'");
    expect((await ok('write', { selector: { xpath: "//input[@id='email']" }, text: 'x@example.com' })).value).toBe(
      'x@example.com',
    );
    for (const selector of [{ css: '#email[' }, { xpath: '//input[' }]) {
      const refused = await call('write', { selector, text: 'nobody@example.com' });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('not valid CSS or XPath');
    }
    const text = await call('write', {
      selector: { xpath: "//label[@for='email']/text()" },
      text: 'nobody@example.com',
    });
    expect(text.status).toBe(400);
    expect(JSON.stringify(text.body)).toContain('The XPath selects text, an attribute or the document, not an element');
    expect(await value('#email')).toBe('x@example.com');
  });

  it('types a password but never echoes it back', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const typed = await ok('write', { selector: { css: '#password' }, text: 'hunter2' });
    expect(typed).toMatchObject({ value: null, url: `${site}/login.html`, title: 'Login' });
    expect(JSON.stringify(typed)).not.toContain('hunter2');
    expect(await value('#password')).toBe('hunter2');
  });

  it('refuses a hidden field instead of typing elsewhere', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    await script("document.getElementById('email').style.display = 'none'");
    const refused = await call('write', { selector: { css: '#email' }, text: 'nobody@example.com' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('assert state visible');
    expect(await value('#email')).toBe('');
  });

  it("refuses a file input, so typed text never becomes the browser machine's files", async () => {
    await ok('navigate', { url: `${site}/upload.html` });
    // The driver reads text typed into a file input as paths on the browser's machine.
    const refused = await call('write', { selector: { css: '#file' }, text: '/etc/passwd' });
    expect(refused.status).toBe(400);
    expect((refused.body.error as Answer).message).toBe(
      'css=#file is an input of type file, which takes no typed text; use upload_file to give it a file.',
    );
    expect(await script("return document.getElementById('file').files.length")).toBe(0);
    expect(await text('#file-content')).toBe('');
  });

  it('sets a date, time or month whole, in its value format, the same on both browsers', async () => {
    await ok('navigate', { url: `${site}/typed-kinds.html` });
    // Typed as keys, Chromium reads these by locale: 2026-12-06 became 61206-02-02.
    const fields: [string, string][] = [
      ['#when', '2026-12-06'],
      ['#at', '14:30'],
      ['#month', '2026-12'],
    ];
    for (const [css, wanted] of fields) {
      expect((await ok('write', { selector: { css }, text: wanted })).value).toBe(wanted);
      expect(await value(css)).toBe(wanted);
    }
    // Firefox has no month input: there it is a text field, whose change comes when it loses focus.
    expect(await text('#changed')).toMatch(/^when=2026-12-06;at=14:30;/);
    const local = await call('write', { selector: { css: '#when' }, text: '12/06/2026' });
    expect(local.status).toBe(400);
    expect((local.body.error as Answer).message).toBe(
      'css=#when is an input of type date, which takes its value as yyyy-mm-dd, such as 2026-12-06; it kept none of the text, so write it in that form.',
    );
  });

  it('says so, as a refusal, when the page throws as a date is set', async () => {
    await ok('navigate', { url: `${site}/typed-kinds.html` });
    // A page's own value setter runs inside the setting, and may throw: the page's word, no bug.
    await script(
      "Object.defineProperty(HTMLInputElement.prototype, 'value', { set() { throw new Error('no'); }, get() { return ''; } })",
    );
    const thrown = await call('write', { selector: { css: '#when' }, text: '2026-12-06' });
    expect(thrown.status).toBe(400);
    expect((thrown.body.error as Answer).message).toContain('css=#when threw as its value was set');
  });

  it('says so when a number field drops the typed text', async () => {
    await ok('navigate', { url: `${site}/typed-kinds.html` });
    expect((await ok('write', { selector: { css: '#qty' }, text: '-4.5' })).value).toBe('-4.5');
    const dropped = await call('write', { selector: { css: '#qty' }, text: 'twelve' });
    expect(dropped.status).toBe(400);
    expect((dropped.body.error as Answer).message).toBe(
      'css=#qty is an input of type number, which kept none of the typed text; write a number, such as 12 or -4.5.',
    );
  });

  it('gives no file to a field that becomes a file input after the lookup, and types paths as any text', async () => {
    await ok('navigate', { url: `${site}/hostile/becomes-file.html` });
    // The field turns into a file input on a timer after it takes focus, once the lookup has
    // looked: Element Send Keys then handed it the file the text names (both browsers).
    await ok('write', { selector: { css: '#later' }, text: '/etc/hostname' });
    expect(
      await script("const f = document.getElementById('later'); return [f.type, f.files.length, got.textContent]"),
    ).toEqual(['file', 0, '']);
    // geckodriver reads a line starting with ~ as a path from the browser's home (the Grid's work
    // directory, its grid.toml beside the other sessions' profiles), and ~/.. reaches any file.
    for (const path of ['~/../../../../etc/hostname', '~/grid.toml']) {
      await ok('navigate', { url: `${site}/hostile/becomes-file.html` });
      await ok('write', { selector: { css: '#later' }, text: path });
      expect(
        await script("const f = document.getElementById('later'); return [f.type, f.files.length, got.textContent]"),
        path,
      ).toEqual(['file', 0, '']);
    }
    // A path into a field that stays a text field is typed as it would be, after what is there.
    await ok('navigate', { url: `${site}/login.html` });
    await script("document.getElementById('email').value = 'path:'");
    expect((await ok('write', { selector: { css: '#email' }, text: '/etc/hostname', clear: false })).value).toBe(
      'path:/etc/hostname',
    );
    expect((await ok('write', { selector: { css: '#email' }, text: 'C:\\Users\\me' })).value).toBe('C:\\Users\\me');
  });

  it('refuses a button or a checkbox, and a WebDriver key code point in the text', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const button = await call('write', { selector: { css: '#submit' }, text: 'a b' });
    expect(button.status).toBe(400);
    expect((button.body.error as Answer).message).toContain('is a button, which takes no typed text; use interact');
    const box = await call('write', { selector: { css: '#remember' }, text: 'x' });
    expect((box.body.error as Answer).message).toContain('use interact with action check or uncheck');
    const keys = await call('write', { selector: { css: '#email' }, text: 'a\uE007b' });
    expect(keys.status).toBe(400);
    expect((keys.body.error as Answer).message).toContain('press keys with press_key');
    expect(await value('#email')).toBe('');
    expect((await workspace()).url).toBe(`${site}/login.html`);
  });

  it('submits the form with submit: true', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const email = 'ada@example.com';
    await ok('write', { selector: { css: '#password' }, text: 'pw' });
    await ok('write', { selector: { css: '#email' }, text: 'ada@' });
    const submitted = await ok('write', {
      selector: { css: '#email' },
      text: 'example.com',
      clear: false,
      submit: true,
    });
    expect(submitted.value).toBe(email);
    await until(
      "location.pathname === '/welcome.html' && document.getElementById('greeting').textContent !== 'Welcome'",
    );
    expect(await text('#greeting')).toBe(`Welcome, ${email}`);
    expect((await workspace()).title).toBe('Welcome');
  });
});

describe('upload_file', () => {
  beforeAll(async () => {
    await ok('navigate', { url: `${site}/upload.html` });
  });

  it('says so when the page turns its file input into another field as the file comes', async () => {
    await ok('navigate', { url: `${site}/hostile/stops-being-file.html` });
    try {
      const refused = await call('upload_file', { selector: { css: '#file' }, text: 'hello', filename: 'note.txt' });
      expect(refused.status).toBe(400);
      expect((refused.body.error as Answer).message).toContain(
        'css=#file holds no file after it was given one: the page turned it into another field or emptied it',
      );
    } finally {
      await ok('navigate', { url: `${site}/upload.html` });
    }
  });

  it('sets a file input from text', async () => {
    const uploaded = await ok('upload_file', {
      selector: { css: '#file' },
      text: 'hello from text',
      filename: 'note.txt',
    });
    expect(uploaded).toMatchObject({ uploaded: 'note.txt', bytes: Buffer.byteLength('hello from text') });
    await until("document.getElementById('file-content').textContent !== ''");
    expect(await text('#file-name')).toBe('note.txt');
    expect(await text('#file-content')).toBe('hello from text');
  });

  it('sets a file input from base64 content', async () => {
    await ok('navigate', { url: `${site}/upload.html` });
    const content = 'id,name\n1,ünïcode\n';
    const uploaded = await ok('upload_file', {
      selector: { css: '#file' },
      content: Buffer.from(content).toString('base64'),
      filename: 'data.csv',
    });
    expect(uploaded).toMatchObject({ uploaded: 'data.csv', bytes: Buffer.byteLength(content) });
    await until("document.getElementById('file-content').textContent !== ''");
    expect(await text('#file-name')).toBe('data.csv');
    expect(await script("return document.getElementById('file-content').textContent")).toBe(content);
  });

  it('refuses an element that is not a file input, and leaves it alone', async () => {
    await ok('navigate', { url: `${site}/login.html` });
    const refused = await call('upload_file', { selector: { css: '#email' }, text: 'x' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('not a file input');
    expect(await value('#email')).toBe('');
    await ok('navigate', { url: `${site}/upload.html` });
  });

  it("sets a file input from the workspace's own Files, and never from another workspace or the global flows", async () => {
    await ok('navigate', { url: `${site}/upload.html` });
    await mkdir(join(browser.dataDir(), TOOLS_WORKSPACE, 'files'), { recursive: true });
    await writeFile(join(browser.dataDir(), TOOLS_WORKSPACE, 'files', 'from-disk.txt'), 'read from this workspace');
    await mkdir(join(browser.dataDir(), 'someone-else', 'files'), { recursive: true });
    await writeFile(join(browser.dataDir(), 'someone-else', 'files', 'theirs.txt'), 'another workspace');
    await mkdir(join(browser.dataDir(), 'global', 'flows'), { recursive: true });
    await writeFile(join(browser.dataDir(), 'global', 'flows', 'ops.yaml'), 'operator flow');
    expect(
      await ok('upload_file', { selector: { css: '#file' }, file: 'workspace://files/from-disk.txt' }),
    ).toMatchObject({ uploaded: 'from-disk.txt' });
    await until("document.getElementById('file-content').textContent !== ''");
    expect(await text('#file-content')).toBe('read from this workspace');
    // There is no path argument any more: nothing names a file outside the caller's workspace.
    for (const path of [
      'from-disk.txt',
      '../someone-else/files/theirs.txt',
      'someone-else/files/theirs.txt',
      'global/flows/ops.yaml',
    ]) {
      const refused = await call('upload_file', { selector: { css: '#file' }, path });
      expect(refused.status, path).toBe(400);
      expect((refused.body.error as Answer).message, path).toContain('Unknown argument "path"');
    }
    for (const file of [
      'workspace://files/..%2Fsomeone-else%2Ffiles%2Ftheirs.txt',
      'workspace://files/../../someone-else/files/theirs.txt',
      'workspace://files/%2E%2E/%2E%2E/global/flows/ops.yaml',
    ]) {
      const refused = await call('upload_file', { selector: { css: '#file' }, file });
      expect(refused.status, file).toBe(400);
    }
    expect(await text('#file-content')).toBe('read from this workspace');
  });
});
