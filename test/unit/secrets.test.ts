import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Forbidden, NotFound } from '../../src/errors.js';
import { BindAudit } from '../../src/secrets/audit.js';
import { Secrets } from '../../src/secrets/binding.js';
import { SecretCall } from '../../src/secrets/secret-call.js';
import { Catalogue } from '../../src/secrets/catalogue.js';
import { FilesystemSource } from '../../src/secrets/filesystem.js';
import { isKeyName, isSecretName } from '../../src/secrets/names.js';
import { allows, originOf, parseAllowedUrls } from '../../src/secrets/origins.js';
import { carries, TypedValues } from '../../src/secrets/taint.js';
import { capturingLogger, projectedSecret, secretsDir } from '../helpers/secrets.js';

const PAGE = (url: string) => ({ top: url, frame: url });

async function secretsOver(dirs: string[], ttlMs = 0) {
  const log = capturingLogger();
  const secrets = new Secrets(
    new Catalogue(
      dirs.map((d) => new FilesystemSource(d)),
      ttlMs,
    ),
    new BindAudit(log),
  );
  return { secrets, log };
}

describe('allowed URLs: the leash matches origins exactly', () => {
  it('reads one origin per line, skipping blanks and comments, normalising default ports', () => {
    const parsed = parseAllowedUrls(
      '# the admin\nhttps://cloud.example.com\n\nhttp://127.0.0.1:8080/\nhttps://cloud.example.com:443\n',
    );
    expect(parsed).toEqual({
      declared: true,
      origins: ['https://cloud.example.com', 'http://127.0.0.1:8080'],
      rejected: [],
    });
  });

  it.each([
    ['https://cloud.example.com.evil.test', false],
    ['https://evil.test/?u=https://cloud.example.com', false],
    ['https://cloud.example.com:8443', false],
    ['http://cloud.example.com', false],
    ['https://sub.cloud.example.com', false],
    ['https://user:pw@cloud.example.com/login', true],
    ['https://cloud.example.com/login?next=/', true],
    ['about:blank', false],
  ])('a page on %s is allowed: %s', (page, expected) => {
    expect(allows(parseAllowedUrls('https://cloud.example.com'), originOf(page))).toBe(expected);
  });

  it('refuses a whole declaration for one line with a path or userinfo, naming the line, never quoting it', () => {
    const parsed = parseAllowedUrls(
      'https://ok.example.com\nhttps://admin:hunter2@ok.example.com\nhttps://ok.example.com/login?token=abc123',
    );
    expect(parsed.rejected.map((r) => r.line)).toEqual([2, 3]);
    expect(JSON.stringify(parsed.rejected)).not.toMatch(/hunter2|abc123|admin|login/);
    expect(parsed.rejected[0]?.reason).toMatch(/userinfo/);
    expect(parsed.rejected[1]?.reason).toMatch(/a path and a query/);
    expect(allows(parsed, 'https://ok.example.com')).toBe(false);
  });

  it('treats no declaration as no restriction, and an empty one as nowhere', () => {
    expect(allows({ declared: false, origins: [], rejected: [] }, 'https://anything.example')).toBe(true);
    expect(allows(parseAllowedUrls('# nothing yet\n'), 'https://anything.example')).toBe(false);
  });
});

describe('secret and key names', () => {
  it.each(['a/b', '..', '.hidden', 'a..b', '', '_reserved', 'x'.repeat(254), 'sp ace'])('refuses %j', (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it('accepts Kubernetes-shaped names and dotted keys', () => {
    expect(isSecretName('cloud-admin.v2')).toBe(true);
    expect(isKeyName('tls.crt')).toBe(true);
  });
});

describe('the filesystem source', () => {
  it('lists a directory per secret and a file per key, one level deep, metadata apart', async () => {
    const dir = await secretsDir({
      'cloud-admin': {
        username: 'ada',
        password: 'pw-1',
        _description: 'Admin login\n',
        _allowed_urls: 'https://cloud.example.com\n',
      },
      '.hidden': { key: 'x' },
    });
    await mkdir(join(dir, 'cloud-admin', 'nested'));
    await writeFile(join(dir, 'cloud-admin', 'nested', 'deeper'), 'no');
    await writeFile(join(dir, 'not-a-secret'), 'a file at the top is not a secret');
    const { secrets } = await secretsOver([dir]);
    const listing = await secrets.list(undefined);
    expect(listing.secrets).toEqual([
      {
        name: 'cloud-admin',
        keys: ['password', 'username'],
        description: 'Admin login',
        allowed_urls: ['https://cloud.example.com'],
        restricted: true,
        usable: true,
        source: 'filesystem',
        location: join(dir, 'cloud-admin'),
        workspace: null,
      },
    ]);
    expect(JSON.stringify(listing)).not.toContain('pw-1');
  });

  it('reads a Kubernetes projected volume (..data symlinks) and types the rotated value', async () => {
    const dir = await secretsDir({});
    const volume = await projectedSecret(dir, 'github', { token: 'old-token\n', _description: 'CI token' });
    const { secrets } = await secretsOver([dir]);
    const listing = await secrets.list(undefined);
    expect(listing.secrets.map((s) => [s.name, s.keys, s.description])).toEqual([['github', ['token'], 'CI token']]);
    expect(await secrets.bind({ workspace: 'w' }, { name: 'github', key: 'token' }, PAGE('https://x.example/'))).toBe(
      'old-token',
    );
    await volume.rotate({ token: 'new-token', _description: 'CI token' });
    expect(await secrets.bind({ workspace: 'w' }, { name: 'github', key: 'token' }, PAGE('https://x.example/'))).toBe(
      'new-token',
    );
  });

  it('resolves a name to the first directory that has it, and says which it hid', async () => {
    const first = await secretsDir({ shared: { password: 'from-first' } });
    const second = await secretsDir({ shared: { password: 'from-second' }, other: { k: 'v' } });
    const { secrets } = await secretsOver([first, second]);
    const listing = await secrets.list(undefined);
    expect(listing.secrets.find((s) => s.name === 'shared')).toMatchObject({
      location: join(first, 'shared'),
      shadows: [{ source: 'filesystem', location: join(second, 'shared') }],
    });
    expect(listing.secrets.map((s) => s.name).sort()).toEqual(['other', 'shared']);
    expect(
      await secrets.bind({ workspace: undefined }, { name: 'shared', key: 'password' }, PAGE('https://x.example/')),
    ).toBe('from-first');
  });

  it('treats what cannot be read as absent, never as fatal', async () => {
    const dir = await secretsDir({ good: { k: 'v' } });
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    await symlink(join(dir, 'nowhere'), join(dir, 'good', 'dangling-key'));
    const { secrets } = await secretsOver([dir, join(dir, 'missing-dir')]);
    const listing = await secrets.list(undefined);
    expect(listing.secrets.map((s) => [s.name, s.keys])).toEqual([['good', ['k']]]);
    expect(listing.sources).toEqual([
      { source: 'filesystem', location: dir },
      { source: 'filesystem', location: join(dir, 'missing-dir'), problem: 'the directory cannot be read' },
    ]);
  });

  it('fails closed when _allowed_urls is there but cannot be read', async () => {
    const dir = await secretsDir({ locked: { password: 'pw' } });
    await symlink(join(dir, 'nowhere'), join(dir, 'locked', '_allowed_urls'));
    const { secrets } = await secretsOver([dir]);
    const [entry] = (await secrets.list(undefined)).secrets;
    expect(entry).toMatchObject({ usable: false, restricted: true });
    await expect(
      secrets.bind({ workspace: undefined }, { name: 'locked', key: 'password' }, PAGE('https://x.example/')),
    ).rejects.toThrow(Forbidden);
  });

  it('shows a bad _allowed_urls line by number, and the secret as unusable with the fix', async () => {
    const dir = await secretsDir({
      leaky: { password: 'pw', _allowed_urls: 'https://ok.example\nhttps://u:tok3n@ok.example\n' },
    });
    const { secrets } = await secretsOver([dir]);
    const [entry] = (await secrets.list(undefined)).secrets;
    expect(entry).toMatchObject({ usable: false, allowed_urls_rejected: [{ line: 2 }] });
    expect(entry?.problem).toMatch(/line 2 carries userinfo/);
    expect(JSON.stringify(entry)).not.toContain('tok3n');
  });
});

describe('the catalogue', () => {
  it('caches the listing for its TTL, but reads a value fresh every time', async () => {
    const dir = await secretsDir({ a: { k: 'one' } });
    let now = 0;
    const catalogue = new Catalogue([new FilesystemSource(dir)], 10_000, () => now);
    expect((await catalogue.list(undefined)).secrets.map((s) => s.name)).toEqual(['a']);
    await mkdir(join(dir, 'b'));
    await writeFile(join(dir, 'b', 'k'), 'two');
    await writeFile(join(dir, 'a', 'k'), 'changed');
    expect((await catalogue.list(undefined)).secrets.map((s) => s.name)).toEqual(['a']);
    const resolved = await catalogue.resolve(undefined, 'a');
    expect(resolved && (await catalogue.read(resolved, 'k'))).toBe('changed');
    now = 10_001;
    expect((await catalogue.list(undefined)).secrets.map((s) => s.name)).toEqual(['a', 'b']);
  });
});

describe('binding', () => {
  it('types only on an allowed origin, and audits both outcomes without the value', async () => {
    const dir = await secretsDir({ admin: { password: 'S3cr3t-value', _allowed_urls: 'https://cloud.example.com' } });
    const { secrets, log } = await secretsOver([dir]);
    const ref = { name: 'admin', key: 'password' };
    await expect(
      secrets.bind(
        { workspace: 'w', flow: 'login', step: 2 },
        ref,
        PAGE('https://cloud.example.com.evil.test/login?x=1'),
      ),
    ).rejects.toThrow(
      /may only be typed on https:\/\/cloud\.example\.com, and the page that would receive it is on https:\/\/cloud\.example\.com\.evil\.test/,
    );
    expect(
      await secrets.bind({ workspace: 'w', flow: 'login', step: 2 }, ref, PAGE('https://cloud.example.com/login?x=1')),
    ).toBe('S3cr3t-value');
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'secret bind refused',
        event: {
          event: 'secret_bind',
          workspace: 'w',
          flow: 'login',
          step: 2,
          secret: 'admin',
          key: 'password',
          origin: 'https://cloud.example.com.evil.test',
          allowed: false,
          reason: 'origin not allowed',
        },
      },
      {
        level: 'info',
        message: 'secret bound',
        event: {
          event: 'secret_bind',
          workspace: 'w',
          flow: 'login',
          step: 2,
          secret: 'admin',
          key: 'password',
          origin: 'https://cloud.example.com',
          allowed: true,
        },
      },
    ]);
    expect(JSON.stringify(log.lines)).not.toMatch(/S3cr3t|login\?x/);
  });

  it('checks the frame that receives the keys and the page around it', async () => {
    const dir = await secretsDir({ admin: { password: 'pw', _allowed_urls: 'https://cloud.example.com' } });
    const { secrets } = await secretsOver([dir]);
    const ref = { name: 'admin', key: 'password' };
    await expect(
      secrets.bind({ workspace: 'w' }, ref, { top: 'https://cloud.example.com/', frame: 'https://evil.test/f' }),
    ).rejects.toThrow(Forbidden);
    await expect(
      secrets.bind({ workspace: 'w' }, ref, { top: 'https://evil.test/', frame: 'https://cloud.example.com/f' }),
    ).rejects.toThrow(/the page around this frame is on https:\/\/evil\.test/);
    await expect(
      secrets.bind({ workspace: 'w' }, ref, { top: 'https://cloud.example.com/', frame: 'about:srcdoc' }),
    ).rejects.toThrow(Forbidden);
  });

  it('answers 404 naming list_secrets for an unknown secret or key, and audits it without echoing the request', async () => {
    const dir = await secretsDir({ admin: { password: 'pw' } });
    const { secrets, log } = await secretsOver([dir]);
    await expect(
      secrets.bind({ workspace: 'w' }, { name: 'nope', key: 'password' }, PAGE('https://x.example/')),
    ).rejects.toThrow(NotFound);
    await expect(
      secrets.bind({ workspace: 'w' }, { name: 'nope', key: 'password' }, PAGE('https://x.example/')),
    ).rejects.toThrow(/list_secrets/);
    await expect(
      secrets.bind({ workspace: 'w' }, { name: 'admin', key: 'pin' }, PAGE('https://x.example/')),
    ).rejects.toThrow('Secret "admin" has no key "pin"; its keys are password (see list_secrets).');
    expect(log.lines.map((l) => [l.level, l.event.secret, l.event.key, l.event.reason])).toEqual([
      ['warn', null, null, 'no such secret'],
      ['warn', null, null, 'no such secret'],
      ['warn', 'admin', null, 'no such key'],
    ]);
  });

  it('says so when no source is configured', async () => {
    const { secrets } = await secretsOver([]);
    await expect(secrets.bind({ workspace: 'w' }, { name: 'a', key: 'b' }, PAGE('https://x.example/'))).rejects.toThrow(
      /no secrets configured/,
    );
  });
});

describe('withholding a page that carries a typed value', () => {
  it('finds a value as typed, URL-encoded or form-encoded', () => {
    expect(carries('https://x.example/?p=a%20b%26c', ['a b&c'])).toBe(true);
    expect(carries('https://x.example/?p=a+b%26c', ['a b&c'])).toBe(true);
    expect(carries('Welcome a b&c', ['a b&c'])).toBe(true);
    expect(carries('https://x.example/?p=other', ['a b&c'])).toBe(false);
    expect(carries('https://x.example/', [''])).toBe(false);
  });

  it('finds a value as HTML, JSON or base64 would carry it, and a long run of it', () => {
    const value = 'Canary-7f3a91 "pw"&<x>';
    expect(carries('<input value="Canary-7f3a91 &quot;pw&quot;&amp;&lt;x&gt;">', [value])).toBe(true);
    expect(carries(JSON.stringify({ a: value }), [value])).toBe(true);
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      expect(carries(`data:${Buffer.from(prefix + value + 'tail').toString('base64')}`, [value]), prefix).toBe(true);
    }
    expect(carries('label: Canary-7f3a91 "p', [value])).toBe(true);
    expect(carries('Canary-7f3a', [value])).toBe(false);
    expect(carries(Buffer.from('something else entirely').toString('base64'), [value])).toBe(false);
  });

  it('finds a value as character references, \\u or \\x escapes, and in any letter case', () => {
    const value = 'Canary-7f3a91 pw!';
    const codes = Array.from(value, (c) => c.codePointAt(0) ?? 0);
    const decimal = codes.map((c) => `&#${c};`).join('');
    const hex = codes.map((c) => `&#x${c.toString(16).toUpperCase()}`).join('');
    const unicode = codes.map((c) => `\\u${c.toString(16).padStart(4, '0')}`).join('');
    const bytes = codes.map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join('');
    for (const shown of [decimal, hex, unicode, `\\u{${codes[0]?.toString(16)}}${value.slice(1)}`, bytes]) {
      expect(carries(`<p>${shown}</p>`, [value]), shown).toBe(true);
    }
    // Mixed, and percent-encoded after: each decoding is applied to what the other left.
    const mixed = Array.from(value, (c, i) => (i % 2 ? c : `&#${c.codePointAt(0)};`)).join('');
    expect(carries(mixed, [value])).toBe(true);
    expect(carries(encodeURIComponent(unicode), [value])).toBe(true);
    expect(carries('Hello CANARY-7F3A91 PW!', [value])).toBe(true);
    expect(carries('hello canary-7f3a91 pw!', [value])).toBe(true);
    expect(carries(JSON.stringify({ v: '\u{1F511}' + value.toUpperCase() }), [value])).toBe(true);
    // A value that itself looks like an escape is still found as it is.
    expect(carries('key a\\u0041b here', ['a\\u0041b'])).toBe(true);
    expect(carries('&#67;&#97;&#110;&#97;&#114;&#121;', [value])).toBe(false);
    expect(carries('\\u0043\\u0061\\u006e', [value])).toBe(false);
  });

  it('finds most of a short value, as a PIN would be shown with a digit missing', () => {
    expect(carries('Your PIN is 482913', ['482913'])).toBe(true);
    expect(carries('PIN 48291*', ['482913'])).toBe(true);
    expect(carries('PIN *82913', ['482913'])).toBe(true);
    expect(carries('&#52;&#56;&#50;&#57;&#49;&#51;', ['482913'])).toBe(true);
    expect(carries('order 4829 of 2913', ['482913'])).toBe(false);
    expect(carries('it costs 1234', ['482913'])).toBe(false);
    // A long value keeps its run of 12: a shorter piece of it is not withheld.
    expect(carries('Canary-7f3a9', ['Canary-7f3a91 pw!'])).toBe(true);
    expect(carries('Canary-7f3a', ['Canary-7f3a91 pw!'])).toBe(false);
  });

  it('screens a large answer in linear time, however its text is built', () => {
    const value = 'Canary-7f3a91 pw!';
    // 200 KB each: milliseconds when linear, hours if any pass backtracked over its input.
    for (const filler of ['&#'.repeat(100_000), '\\u00'.repeat(50_000), '&#x1234567'.repeat(20_000)]) {
      const started = performance.now();
      expect(carries(filler, [value])).toBe(false);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });

  it('holds typed values per browser, bounded, and lets them go after a day without a call', () => {
    let now = 0;
    const typed = new TypedValues(() => now);
    for (let i = 0; i < 40; i++) {
      typed.remember('workspace:w', `value-${i}`);
    }
    expect(typed.of('workspace:w')).toHaveLength(32);
    expect(typed.of('workspace:w')).not.toContain('value-0');
    expect(typed.of('workspace:w')).toContain('value-39');
    expect(typed.of('workspace:other')).toEqual([]);
    now += 23 * 3600_000;
    expect(typed.of('workspace:w')).toHaveLength(32);
    now += 24 * 3600_000 + 1;
    expect(typed.of('workspace:w')).toEqual([]);
  });

  it('screens every later answer about the browser it was typed into, and no other', async () => {
    const dir = await secretsDir({ admin: { password: 'p@ss word' } });
    const { secrets, log } = await secretsOver([dir]);
    const first = new SecretCall(secrets, { workspace: 'w' }, 'workspace:w');
    let typed = '';
    await first.type({ name: 'admin', key: 'password' }, PAGE('http://127.0.0.1:9/login.html'), async (value) => {
      typed = value;
      return { typed: true };
    });
    expect(typed).toBe('p@ss word');
    const landed = { url: 'http://127.0.0.1:9/welcome.html?password=p%40ss+word', title: 'Welcome' };
    expect(first.screen(landed)).toEqual({ shown: { url: 'http://127.0.0.1:9', title: '' }, withheld: true });
    first.end();
    const later = new SecretCall(secrets, { workspace: 'w' }, 'workspace:w');
    expect(later.screen(landed).withheld).toBe(true);
    expect(later.screen({ url: 'http://127.0.0.1:9/table.html', title: 'Table' }).withheld).toBe(false);
    const screened = later.screenAnswer({ result: { list: ['ok', 'x p@ss word'], ['p@ss word']: 1 }, message: 'fine' });
    expect(screened).toMatchObject({
      result: { list: ['ok', ''], 'withheld-1': null },
      message: 'fine',
      withheld: true,
    });
    expect(String(screened.withheld_reason)).toMatch(/typed as a secret/);
    expect(later.screenAnswer({ value: 'nothing here' })).toEqual({ value: 'nothing here' });
    const error = later.screenError(new NotFound('The script threw: p@ss word. Fix it.'));
    expect(error).toBeInstanceOf(NotFound);
    expect((error as Error).message).not.toContain('p@ss');
    const elsewhere = new SecretCall(secrets, { workspace: 'other' }, 'workspace:other');
    expect(elsewhere.screen(landed).withheld).toBe(false);
    expect(log.lines.map((l) => [l.level, l.event.allowed])).toEqual([['info', true]]);
    // the browser ends: nothing typed into it is held any longer
    later.forgetBrowser();
    expect(later.typedHere()).toBe(false);
    expect(later.screen(landed).withheld).toBe(false);
  });

  it('audits a typing refused by the page (it moved) and a page that moved while typed into', async () => {
    const dir = await secretsDir({ admin: { password: 'p@ss word' } });
    const { secrets, log } = await secretsOver([dir]);
    const call = new SecretCall(secrets, { workspace: 'w' }, 'workspace:w');
    await expect(
      call.type({ name: 'admin', key: 'password' }, PAGE('http://127.0.0.1:9/login.html'), async () => ({
        typed: false,
        reason: 'page changed origin before typing',
        message: 'moved',
      })),
    ).rejects.toThrow(Forbidden);
    const moved = await call.type(
      { name: 'admin', key: 'password' },
      PAGE('http://127.0.0.1:9/login.html'),
      async () => ({ typed: true, movedTo: 'http://127.0.0.1:10' }),
    );
    expect(moved).toEqual({ typed: true, movedTo: 'http://127.0.0.1:10' });
    expect(call.screen({ url: 'http://127.0.0.1:10/landing', title: 'Landing' })).toEqual({
      shown: { url: 'http://127.0.0.1:10', title: '' },
      withheld: true,
    });
    expect(log.lines.map((l) => [l.level, l.event.allowed, l.event.origin, l.event.reason])).toEqual([
      ['warn', false, 'http://127.0.0.1:9', 'page changed origin before typing'],
      ['warn', false, 'http://127.0.0.1:10', 'page changed origin while typing; its state is withheld'],
    ]);
  });
});

describe('the secrets settings', () => {
  it('reads SECRETS_DIRS as a colon-separated list and SECRETS_KUBERNETES as auto or off', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(loadConfig({}, {})).toMatchObject({ secretsDirs: [], secretsKubernetes: 'auto', secretsTtl: 10 });
    expect(loadConfig({ 'secrets-dirs': '/a::/b' }, { SECRETS_DIRS: '/ignored' }).secretsDirs).toEqual(['/a', '/b']);
    expect(() => loadConfig({}, { SECRETS_KUBERNETES: 'maybe' })).toThrow(
      /^SECRETS_KUBERNETES must be "auto" or "off"/,
    );
  });
});
