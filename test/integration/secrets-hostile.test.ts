import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { startGridProxy } from '../helpers/grid-proxy.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { secretsDir } from '../helpers/secrets.js';

/**
 * Issue 20: a secret leashed to origin A, typed into hostile pages of A that embed, redirect
 * to and post to origin B (a second fixture site on another loopback port). The canary must
 * reach no answer, record (Redis), stored flow, file or log line, and no keystroke may reach B.
 */
const CANARY = 'Canary-7f3a91 pw!';
const FORMS = [
  CANARY,
  encodeURIComponent(CANARY),
  encodeURIComponent(CANARY).replace(/%20/g, '+'),
  Buffer.from(CANARY).toString('base64'),
  'Canary-7f3a91',
  CANARY.toUpperCase(),
  Array.from(CANARY, (c) => `&#${c.codePointAt(0)};`).join(''),
  Array.from(CANARY, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join(''),
];
const PIN = '482913';
const FRAMED = 'framed-5c1e';

/** the server under attack: its own process, so its whole log can be grepped */
let served: Replica;
let base: string;
let dataDir: string;
let secretsDirs: string;
let redis: RunningRedis;
let a: FixtureSite;
let b: FixtureSite;
const answers: string[] = [];
const secret = { name: 'canary', key: 'password' };

async function call(
  path: string,
  body?: unknown,
  workspace = 'hostile',
  server = base,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(server + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-workspace': workspace, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

const script = async (source: string) => (await call('/browser/execute-script', { script: source })).body;
const fieldLength = async (css: string) =>
  (await script(`return document.querySelector(${JSON.stringify(css)}).value.length`)).result;
/** The same fixture site under another host name: another site to a browser (in Chromium, another process). */
const otherSite = (url: string) => url.replace('127.0.0.1', 'localhost');
/** What B received that is not a frame merely taking focus: keys, input, a landing. */
const fromB = () => b.received.filter((r) => r.event !== 'focused');
/** Long enough for what a page posts to B to arrive: B's hearing nothing has no event to wait for. */
const B_QUIET_MS = 500;

/**
 * Until tell-later.html on A has told (it posts "told", or its landing page "landed"), counting
 * from A's `since`th request, of a value at least `length` long: the event the test is about, not
 * a clock. Finite: 10 s.
 */
async function told(since: number, event = 'told', length = 0): Promise<void> {
  const deadline = Date.now() + 10_000;
  const said = (r: { event: string; body: string }) =>
    r.event === event && (event !== 'told' || Number(r.body) >= length);
  while (!a.received.slice(since).some(said)) {
    if (Date.now() > deadline) {
      throw new Error(`tell-later.html did not say "${event}" within 10 s`);
    }
    await delay(50);
  }
}

beforeAll(async () => {
  a = await startFixtureSite();
  b = await startFixtureSite();
  redis = await startRedis();
  const dir = await secretsDir({
    canary: { password: CANARY, _allowed_urls: `${a.url}\n` },
    pin: { code: PIN, _allowed_urls: `${a.url}\n` },
    framed: { password: FRAMED, _allowed_urls: `${a.url}\n${otherSite(a.url)}\n` },
  });
  secretsDirs = dir;
  dataDir = await mkdtemp(join(tmpdir(), 'sf-hostile-data-'));
  served = await spawnReplica({
    GRID_URL: inject('gridUrl'),
    REDIS_URL: redis.url,
    SECRETS_DIRS: dir,
    SECRETS_KUBERNETES: 'off',
    SECRETS_TTL: '0',
    FLOW_DATA_DIR: dataDir,
    LOG_LEVEL: 'trace',
  });
  base = served.url;
});

afterAll(async () => {
  await call('/browser/end-browser', {}).catch(() => undefined);
  await served?.kill('SIGTERM');
  await redis?.stop();
  await a?.close();
  await b?.close();
});

describe('a secret typed into a hostile page', { timeout: 120_000 }, () => {
  it('lands only in its field: a frame from B that keeps stealing focus receives nothing', async () => {
    for (let run = 0; run < 3; run++) {
      b.received.length = 0;
      await call('/browser/navigate', { url: `${a.url}/hostile/focus-thief-host.html?b=${encodeURIComponent(b.url)}` });
      // The frame from B is up and stealing focus when B hears it took focus.
      await expect.poll(() => b.received.some((r) => r.event === 'focused'), { timeout: 15_000 }).toBe(true);
      b.received.length = 0;
      const typed = await call('/browser/write', { selector: { css: '#password' }, secret });
      expect(typed.status, JSON.stringify(typed.body)).toBe(200);
      expect(typed.body).toMatchObject({ value: null, secret, title: 'Sign in' });
      // Focus taken back from the frame after the typing: B hears the frame retake it, after
      // any key or input it posted while the typing ran.
      const before = b.received.length;
      await script("document.getElementById('password').focus(); return true");
      await expect
        .poll(() => b.received.slice(before).some((r) => r.event === 'focused'), { timeout: 15_000 })
        .toBe(true);
      expect(fromB()).toEqual([]);
      expect(await fieldLength('#password')).toBe(CANARY.length);
    }
  });

  it('is refused in a frame from B that forges its address, and the frame receives nothing', async () => {
    b.received.length = 0;
    await call('/browser/navigate', { url: `${a.url}/hostile/apply-thief-host.html?b=${encodeURIComponent(b.url)}` });
    await expect.poll(() => b.received.some((r) => r.event === 'ready'), { timeout: 15_000 }).toBe(true);
    expect((await call('/browser/frame', { action: 'enter', selector: { css: '#thief' } })).status).toBe(200);
    try {
      const refused = await call('/browser/write', { selector: { css: '#password' }, secret });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect((refused.body.error as { message: string }).message).toContain(`would receive it is on ${b.url}`);
    } finally {
      await call('/browser/frame', { action: 'top' });
    }
    // Whatever the frame saw of the scripts run in it, none of it carried the value: its beacons had time to come.
    await delay(B_QUIET_MS);
    const seen = b.received.map((r) => r.body).join('\n');
    expect(FORMS.filter((form) => seen.includes(form))).toEqual([]);
  });

  it('is refused in A’s page framed by B, though B says it is A', async () => {
    await call('/browser/navigate', { url: `${b.url}/hostile/url-liar-host.html?a=${encodeURIComponent(a.url)}` });
    expect((await call('/browser/frame', { action: 'enter', selector: { css: '#login' } })).status).toBe(200);
    try {
      const refused = await call('/browser/write', { selector: { css: '#password' }, secret, wait_timeout: 10 });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect((refused.body.error as { message: string }).message).toContain(
        `the page around this frame is on ${b.url}`,
      );
      expect(await fieldLength('#password')).toBe(0);
    } finally {
      await call('/browser/frame', { action: 'top' });
    }
  });

  it('is refused on a Chromium whose Grid does not pass DevTools commands, auditing why', async () => {
    const proxy = await startGridProxy(inject('gridUrl'));
    proxy.unknownCommands = [/\/goog\/cdp\/execute$/];
    const plain = await spawnReplica({ GRID_URL: proxy.url, SECRETS_DIRS: secretsDirs, SECRETS_KUBERNETES: 'off' });
    try {
      await call('/browser/navigate', { url: `${a.url}/login.html` }, 'no-devtools', plain.url);
      const typed = await call('/browser/write', { selector: { css: '#password' }, secret }, 'no-devtools', plain.url);
      if (process.env.TEST_BROWSER === 'firefox') {
        // geckodriver says where the field is without DevTools.
        expect(typed.status, JSON.stringify(typed.body)).toBe(200);
        return;
      }
      expect(typed.status, JSON.stringify(typed.body)).toBe(403);
      expect((typed.body.error as { message: string }).message).toMatch(
        /typed only where the browser itself says which page receives it, and the browser did not answer the DevTools command/,
      );
      await expect
        .poll(() => plain.output().includes('"reason":"receiving page not verifiable"'), { timeout: 5_000 })
        .toBe(true);
    } finally {
      await call('/browser/end-browser', {}, 'no-devtools', plain.url).catch(() => undefined);
      await plain.kill('SIGTERM');
      await proxy.close();
    }
  });

  it('goes into a frame of an allowed origin, from the page’s own site or another', async () => {
    const framed = { name: 'framed', key: 'password' };
    const other = otherSite(a.url);
    await call('/browser/navigate', { url: `${a.url}/framed-login.html?other=${encodeURIComponent(other)}` });
    for (const frame of ['#same', '#other']) {
      expect((await call('/browser/frame', { action: 'enter', selector: { css: frame } })).status).toBe(200);
      try {
        const typed = await call('/browser/write', {
          selector: { css: '#password' },
          secret: framed,
          wait_timeout: 10,
        });
        expect(typed.status, `${frame}: ${JSON.stringify(typed.body)}`).toBe(200);
        expect(await fieldLength('#password')).toBe(FRAMED.length);
      } finally {
        await call('/browser/frame', { action: 'top' });
      }
    }
  });

  it('reaches a React-style controlled input as typing would, with a note that the field shows it', async () => {
    await call('/browser/navigate', { url: `${a.url}/hostile/controlled.html` });
    const typed = await call('/browser/write', { selector: { css: '#token' }, secret });
    expect(typed.status).toBe(200);
    expect(typed.body.note).toMatch(/^typed into a text field, which shows it in clear/);
    expect(
      await script("const s = document.querySelector('#state').dataset; return [s.length, s.renders]"),
    ).toMatchObject({ result: [String(CANARY.length), '1'] });
  });

  it('is refused in a field that takes no text, auditing the refusal', async () => {
    await call('/browser/navigate', { url: `${a.url}/login.html` });
    const refused = await call('/browser/write', { selector: { css: '#remember' }, secret });
    expect(refused.status).toBe(403);
    expect((refused.body.error as { message: string }).message).toMatch(
      /only into a text field .* input\[type=checkbox\]; nothing was typed/,
    );
  });

  it('does not come back in a dialog: not in write’s dialog.message, not from the dialog tool', async () => {
    await call('/browser/navigate', { url: `${a.url}/hostile/tell-later.html?how=alert` });
    const typed = await call('/browser/write', { selector: { css: '#password' }, secret });
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    expect(typed.body).toMatchObject({ dialog: { message: '' }, withheld: true });
    const answered = await call('/browser/dialog', { action: 'accept' });
    expect(answered.body).toMatchObject({ message: '', answered: 'accept', withheld: true });
    expect(String(answered.body.withheld_reason)).toMatch(/typed as a secret/);
  });

  it.each(['url', 'title', 'replace'])(
    'is withheld when the page puts it in its %s 1.5 s later: the next call, and never the record',
    async (how) => {
      await call('/browser/navigate', { url: `${a.url}/hostile/tell-later.html?how=${how}` });
      const since = a.received.length;
      const typed = await call('/browser/write', { selector: { css: '#password' }, secret });
      expect(typed.body.withheld).toBeUndefined();
      await told(since, how === 'url' ? 'landed' : 'told');
      const next = await call('/browser/interact', { action: 'hover', selector: { css: 'body' } });
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ url: a.url, title: '', withheld: true });
      const outline = await call('/browser/outline', {});
      expect(outline.body).toMatchObject({ url: a.url, title: '', withheld: true });
      expect((await script('return location.href + " " + document.title')).withheld).toBe(true);
      const record = (await call('/workspace')).body;
      expect(record.url).toBe(`${a.url}/hostile/tell-later.html?how=${how}`);
    },
  );

  it('does not come back from direct reads: extract (whole or cut), execute_script as is or encoded, a thrown error', async () => {
    await call('/browser/navigate', { url: `${a.url}/hostile/tell-later.html?how=echo` });
    const since = a.received.length;
    await call('/browser/write', { selector: { css: '#password' }, text: 'x'.repeat(90) });
    await call('/browser/write', { selector: { css: '#password' }, secret, clear: false });
    const read = await call('/browser/extract', { selector: { css: '#password' }, what: 'value' });
    expect(read.body).toMatchObject({ value: '', withheld: true });
    // cut after ten characters of the value: too few to recognise once cut, so screened before
    const cut = await call('/browser/extract', { selector: { css: '#password' }, what: 'value', max_chars: 100 });
    expect(cut.body).toMatchObject({ value: '', withheld: true });
    const value = "document.querySelector('#password').value";
    for (const source of [
      `return ${value}`,
      `return btoa(${value})`,
      `return [{k: ${value}}]`,
      `return JSON.stringify({v: ${value}})`,
      `return {[${value}]: 1}`,
    ]) {
      const answer = await script(source);
      expect(answer.withheld, source).toBe(true);
    }
    const thrown = await call('/browser/execute-script', { script: `throw new Error(${value})` });
    expect(thrown.status).toBe(400);
    expect((thrown.body.error as { message: string }).message).toMatch(
      /typed as a secret into this browser, so it is withheld/,
    );
    // the page tells what the field holds once it changes: wait for the value with the secret in it
    await told(since, 'told', 90 + CANARY.length);
    const html = await call('/browser/extract', { selector: { css: '#echo' }, what: 'html' });
    expect(html.body).toMatchObject({ value: '', withheld: true });
    const text = await call('/browser/extract', {});
    expect(text.body.withheld).toBe(true);
  });

  it('does not come back in another encoding: references, \\u and \\x escapes, upper case, most of a PIN', async () => {
    await call('/browser/navigate', { url: `${a.url}/hostile/encode.html` });
    const shown = ['decimal', 'hex', 'unicode', 'bytes', 'upper', 'mostly'];
    // The page echoes plain text too, and that is answered: the screen blanks only typed values.
    await call('/browser/write', { selector: { css: '#pin' }, text: 'hello' });
    expect((await call('/browser/extract', { selector: { css: '#upper' } })).body).toMatchObject({ value: 'HELLO' });
    expect((await call('/browser/extract', { selector: { css: '#decimal' } })).body.withheld).toBeUndefined();
    for (const [field, typed] of [
      ['#password', secret],
      ['#pin', { name: 'pin', key: 'code' }],
    ] as const) {
      const written = await call('/browser/write', { selector: { css: field }, secret: typed });
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      // The page echoes in its input listener, inside the write's own script: shown by now.
      expect((await script('return document.body.dataset.shown')).result).toBe(field.slice(1));
      for (const id of shown) {
        const read = await call('/browser/extract', { selector: { css: `#${id}` } });
        expect(read.body, `${field} as ${id}`).toMatchObject({ value: '', withheld: true });
      }
      expect((await call('/browser/extract', {})).body.withheld, field).toBe(true);
      expect((await call('/browser/extract', { what: 'html' })).body.withheld, field).toBe(true);
      const scripted = await script("return [...document.querySelectorAll('p[id]')].map((p) => p.textContent)");
      expect(scripted, field).toMatchObject({ withheld: true });
    }
    expect(answers.some((answer) => answer.includes(PIN) || answer.includes(PIN.slice(0, -1)))).toBe(false);
  });

  it('is blanked in screenshots and prints, and the field holds it again after', async () => {
    await call('/browser/navigate', { url: `${a.url}/hostile/controlled.html` });
    const shot = async () => (await call('/browser/screenshot', { selector: { css: '#token' } })).body;
    await call('/browser/write', { selector: { css: '#token' }, secret });
    const masked = await shot();
    expect(await fieldLength('#token')).toBe(CANARY.length);
    // The same field, empty, and then with text of the canary's length typed as plain text.
    await script(
      "const e = document.querySelector('#token'); Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(e, '')",
    );
    const empty = await shot();
    await script(
      "const e = document.querySelector('#token'); e.removeAttribute('data-selenium-flow-secret'); Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(e, 'Xxxxxx-0000000 xx!')",
    );
    const plain = await shot();
    expect(masked.bytes).toBeGreaterThan(0);
    expect(masked.data).toBe(empty.data);
    expect(plain.data).not.toBe(empty.data);
    await call('/browser/write', { selector: { css: '#token' }, secret });
    const printed = await call('/browser/print', { filename: 'hostile' });
    expect(printed.body).toMatchObject({ mime_type: 'application/pdf', name: 'hostile.pdf' });
    expect(await fieldLength('#token')).toBe(CANARY.length);
    const saved = await call('/browser/screenshot', { save: true, filename: 'hostile' });
    expect(saved.body.uri).toBeDefined();
  });

  it('is not captured at all when the page shows it outside its field', async () => {
    await call('/browser/navigate', { url: `${a.url}/hostile/tell-later.html?how=echo` });
    const since = a.received.length;
    await call('/browser/write', { selector: { css: '#visible' }, secret });
    await told(since);
    const shot = await call('/browser/screenshot', {});
    expect(shot.body).toMatchObject({ bytes: 0, withheld: true });
    expect(shot.body.data).toBeUndefined();
    expect(String(shot.body.withheld_reason)).toMatch(/outside the field/);
  });

  it('sends no keystroke to B when the page redirects there while typed into', async () => {
    b.received.length = 0;
    await call('/browser/navigate', {
      url: `${a.url}/hostile/redirect-while-typing.html?on=keys&b=${encodeURIComponent(b.url)}`,
    });
    const typed = await call('/browser/write', { selector: { css: '#password' }, secret });
    expect(typed.status).toBe(200);
    // A keystroke B's page caught would have been posted by now.
    await delay(B_QUIET_MS);
    expect(fromB()).toEqual([]);
    expect(typed.body).toMatchObject({
      url: `${a.url}/hostile/redirect-while-typing.html?on=keys&b=${encodeURIComponent(b.url)}`,
    });
  });

  // The page's own input listener takes it to B with what the field holds: that is A's script
  // sending a value it was given, which no typing can prevent (docs/security.md). What must hold:
  // no keystroke reaches B, and the answer, the record and the audit do not show B's address.
  it('withholds and audits a page that moved to B as the value went in', async () => {
    b.received.length = 0;
    const start = `${a.url}/hostile/redirect-while-typing.html?on=input&b=${encodeURIComponent(b.url)}`;
    await call('/browser/navigate', { url: start });
    const typed = await call('/browser/write', { selector: { css: '#password' }, secret });
    expect(typed.status).toBe(200);
    expect(typed.body).toMatchObject({ url: b.url, title: '', withheld: true });
    expect(String(typed.body.withheld_reason)).toMatch(/changed origin while a secret was being typed/);
    expect((await call('/workspace')).body.url).toBe(start);
    // A keystroke B's page caught would have been posted by now.
    await delay(B_QUIET_MS);
    expect(fromB().filter((r) => r.event === 'key')).toEqual([]);
    const moved = served
      .output()
      .split('\n')
      .filter((line) => line.includes('"secret_bind"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.reason === 'page changed origin while typing; its state is withheld');
    expect(moved).toMatchObject([{ allowed: false, origin: b.url, level: 40 }]);
  });

  it('stays out of a flow run report, its stored document and a failing run', async () => {
    const flow = {
      name: 'hostile-login',
      document: {
        steps: [
          { tool: 'navigate', args: { url: `${a.url}/hostile/tell-later.html?how=title` } },
          { tool: 'write', args: { selector: { css: '#password' }, secret } },
          {
            tool: 'execute_script',
            args: { script: 'return new Promise((r) => setTimeout(() => r(document.title), 1800))' },
          },
          { tool: 'extract', args: { selector: { css: '#password' }, what: 'value' } },
        ],
      },
    };
    expect((await call('/flows/hostile-login', undefined)).status).toBe(404);
    const saved = await fetch(`${base}/flows/hostile-login`, {
      method: 'PUT',
      headers: { 'x-workspace': 'hostile', 'content-type': 'application/json' },
      body: JSON.stringify(flow.document),
    });
    answers.push(await saved.text());
    expect(saved.status).toBeLessThan(300);
    const run = await call('/flows/hostile-login/run', { verbose: true });
    expect(run.body).toMatchObject({ status: 'ok', title: '' });
    const steps = run.body.steps as { result: Record<string, unknown> }[];
    expect(steps[2]?.result).toMatchObject({ result: '', withheld: true });
    expect(steps[3]?.result).toMatchObject({ value: '', withheld: true });
    const failing = await fetch(`${base}/flows/hostile-fail`, {
      method: 'PUT',
      headers: { 'x-workspace': 'hostile', 'content-type': 'application/json' },
      body: JSON.stringify({
        steps: [
          { tool: 'navigate', args: { url: `${a.url}/hostile/tell-later.html?how=none` } },
          { tool: 'write', args: { selector: { css: '#password' }, secret } },
          { tool: 'execute_script', args: { script: "throw new Error(document.querySelector('#password').value)" } },
        ],
      }),
    });
    answers.push(await failing.text());
    const failed = await call('/flows/hostile-fail/run', {});
    expect(failed.body).toMatchObject({ status: 'failed', failed: { n: 3 } });
    expect(JSON.stringify(failed.body.failed)).toMatch(/typed as a secret into this browser, so it is withheld/);
  });

  it('is screened by another replica too: the record names what was typed, never its value', async () => {
    const replica = await spawnReplica({
      GRID_URL: inject('gridUrl'),
      REDIS_URL: redis.url,
      SECRETS_DIRS: secretsDirs,
      SECRETS_KUBERNETES: 'off',
      SECRETS_TTL: '0',
      FLOW_DATA_DIR: dataDir,
    });
    try {
      const W = 'hostile-replicas';
      await call('/browser/navigate', { url: `${a.url}/hostile/tell-later.html?how=title` }, W);
      const since = a.received.length;
      expect((await call('/browser/write', { selector: { css: '#password' }, secret }, W)).status).toBe(200);
      await told(since);
      const there = await call('/browser/outline', {}, W, replica.url);
      expect(there.body).toMatchObject({ url: a.url, title: '', withheld: true });
      expect(
        (await call('/browser/extract', { selector: { css: '#password' }, what: 'value' }, W, replica.url)).body,
      ).toMatchObject({ value: '', withheld: true });
      await call('/browser/end-browser', {}, W, replica.url);
    } finally {
      await replica.kill('SIGTERM');
    }
  });

  it('appears nowhere: 0 hits in every answer, the Redis records, stored flows and files, and the log', async () => {
    const peek = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    const records: string[] = [];
    try {
      // Every kind of record the server keeps: strings, the audit events' list, hashes, sets.
      for (const key of await peek.keys('*')) {
        const kind = await peek.type(key);
        const values =
          kind === 'list'
            ? await peek.lrange(key, 0, -1)
            : kind === 'hash'
              ? Object.entries(await peek.hgetall(key)).flat()
              : kind === 'set'
                ? await peek.smembers(key)
                : kind === 'zset'
                  ? await peek.zrange(key, '0', '-1')
                  : [(await peek.get(key)) ?? ''];
        records.push(key, ...values);
      }
    } finally {
      peek.disconnect();
    }
    expect(records.join('\n')).toMatch(/hostile/);
    const stored: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          await walk(path);
        } else {
          stored.push(path, (await readFile(path)).toString('latin1'));
        }
      }
    };
    await walk(dataDir);
    expect(stored.join('\n')).toMatch(/hostile-login/);
    expect(answers.length).toBeGreaterThan(40);
    const haystacks = {
      answers: answers.join('\n'),
      records: records.join('\n'),
      stored: stored.join('\n'),
      log: served.output(),
    };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const form of FORMS) {
        expect(text.includes(form), `${where} carries ${JSON.stringify(form)}`).toBe(false);
      }
    }
  });
});
