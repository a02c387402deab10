import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { connectMcp, rest, startServer, type RunningServer } from '../helpers/server.js';
import { projectedSecret, secretsDir } from '../helpers/secrets.js';

let server: RunningServer;
let other: FixtureSite;
let dir: string;
let rotate: (next: Record<string, string>) => Promise<void>;
const site = () => inject('siteUrl');
const ws = (name: string) => ({ 'X-Workspace': name });
/** One workspace, so one Grid slot, for every browser test here. */
const W = 'secrets';

beforeAll(async () => {
  other = await startFixtureSite();
  dir = await secretsDir({
    'site-login': {
      username: 'ada@example.com',
      password: 'pw-site-1',
      _description: 'The fixture site',
      _allowed_urls: `${site()}\n`,
    },
    anywhere: { password: 'free pw&1' },
    broken: { password: 'never', _allowed_urls: `${site()}/login.html\n` },
  });
  const volume = await projectedSecret(dir, 'rotating', { password: 'first-value' });
  rotate = (next) => volume.rotate(next);
  server = await startServer({ SECRETS_DIRS: dir, SECRETS_TTL: '0', SECRETS_KUBERNETES: 'off' });
});
afterAll(async () => {
  await rest(server.url, '/browser/end-browser', {}, ws(W)).catch(() => undefined);
  await server?.close();
  await other?.close();
});

const fieldValue = async (name: string, css: string) =>
  (await rest(server.url, '/browser/extract', { selector: { css }, what: 'value' }, ws(name))).body.value;
/** Whether a field holds exactly `value`: a read of a typed secret is withheld, a comparison is not. */
const fieldHolds = async (name: string, css: string, value: string) =>
  (
    await rest(
      server.url,
      '/browser/execute-script',
      { script: 'return document.querySelector(arguments[0]).value === arguments[1]', args: [css, value] },
      ws(name),
    )
  ).body.result;

describe('the secrets catalogue', () => {
  it('is the same listing over GET /secrets, list_secrets and secret://secrets, with no value in it', async () => {
    const http = await rest(server.url, '/secrets');
    expect(http.status).toBe(200);
    const secrets = http.body.secrets as Record<string, unknown>[];
    expect(secrets.map((s) => s.name)).toEqual(['anywhere', 'broken', 'rotating', 'site-login']);
    expect(secrets.find((s) => s.name === 'site-login')).toEqual({
      name: 'site-login',
      keys: ['password', 'username'],
      description: 'The fixture site',
      allowed_urls: [site()],
      restricted: true,
      usable: true,
      source: 'filesystem',
      location: join(dir, 'site-login'),
      workspace: null,
    });
    expect(secrets.find((s) => s.name === 'broken')).toMatchObject({
      usable: false,
      allowed_urls_rejected: [{ line: 1 }],
    });
    expect(JSON.stringify(http.body)).not.toMatch(/pw-site-1|free pw|first-value|never/);
    const mcp = await connectMcp(server.url, '2026-07-28', { workspace: 'catalogue' });
    try {
      expect((await mcp.call('list_secrets')).structured).toEqual(http.body);
      expect(JSON.parse(await mcp.readResource('secret://secrets'))).toEqual(http.body);
    } finally {
      await mcp.close();
    }
  });
});

describe('write with a secret', () => {
  it('types the value, answers value null and names the secret, and keeps the page', async () => {
    await rest(server.url, '/browser/navigate', { url: `${site()}/login.html` }, ws(W));
    const typed = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'site-login', key: 'password' } },
      ws(W),
    );
    expect(typed).toEqual({
      status: 200,
      body: {
        url: `${site()}/login.html`,
        title: 'Login',
        value: null,
        secret: { name: 'site-login', key: 'password' },
      },
    });
    expect(await fieldHolds(W, '#password', 'pw-site-1')).toBe(true);
    // and reading it back answers nothing of it
    expect(
      (await rest(server.url, '/browser/extract', { selector: { css: '#password' }, what: 'value' }, ws(W))).body,
    ).toMatchObject({ value: '', withheld: true });
    expect((await rest(server.url, '/workspace', undefined, ws(W))).body).toMatchObject({
      url: `${site()}/login.html`,
      title: 'Login',
    });
  });

  it('types a rotated file value: the one on disk at the moment of typing', async () => {
    await rest(server.url, '/browser/navigate', { url: `${site()}/login.html` }, ws(W));
    const write = () =>
      rest(
        server.url,
        '/browser/write',
        { selector: { css: '#email' }, secret: { name: 'rotating', key: 'password' } },
        ws(W),
      );
    await write();
    expect(await fieldHolds(W, '#email', 'first-value')).toBe(true);
    await rotate({ password: 'second-value' });
    await write();
    expect(await fieldHolds(W, '#email', 'second-value')).toBe(true);
  });

  it('withholds a page whose address carries the typed value, now and on later calls', async () => {
    const name = W;
    await rest(server.url, '/browser/navigate', { url: `${site()}/login.html` }, ws(name));
    const submitted = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'anywhere', key: 'password' }, submit: true },
      ws(name),
    );
    // The login form is a GET form: the next page's address holds the password.
    expect(submitted.body).toMatchObject({ url: site(), title: '', withheld: true, value: null });
    const again = await rest(server.url, '/browser/interact', { action: 'hover', selector: { css: 'h1' } }, ws(name));
    expect(again.body).toMatchObject({ url: site(), title: '', withheld: true });
    const outline = await rest(server.url, '/browser/outline', {}, ws(name));
    expect(outline.body.url).toBe(site());
    expect((await rest(server.url, '/workspace', undefined, ws(name))).body).toMatchObject({
      url: `${site()}/login.html`,
      title: 'Login',
    });
    const away = await rest(server.url, '/browser/navigate', { url: `${site()}/table.html` }, ws(name));
    expect(away.body).toMatchObject({ url: `${site()}/table.html`, title: 'Data table' });
    expect(away.body.withheld).toBeUndefined();
  });

  it('answers the page a slow form answer leads to, withheld, not the page it left', async () => {
    await rest(server.url, '/browser/navigate', { url: `${site()}/slow-login.html` }, ws(W));
    const submitted = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'anywhere', key: 'password' }, submit: true },
      ws(W),
    );
    expect(submitted.body).toMatchObject({ url: site(), title: '', withheld: true, value: null });
    expect(JSON.stringify(submitted.body)).not.toMatch(/free|pw/);
    expect((await rest(server.url, '/workspace', undefined, ws(W))).body).toMatchObject({
      url: `${site()}/slow-login.html`,
    });
  });

  it('refuses a page on another port before any keystroke', async () => {
    await rest(server.url, '/browser/navigate', { url: `${other.url}/login.html` }, ws(W));
    const refused = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'site-login', key: 'password' } },
      ws(W),
    );
    expect(refused.status).toBe(403);
    expect((refused.body.error as { message: string }).message).toBe(
      `Secret "site-login" may only be typed on ${site()}, and the page that would receive it is on ${other.url}; nothing was typed. Navigate to an allowed page first (list_secrets shows where each secret may be used).`,
    );
    expect(await fieldValue(W, '#password')).toBe('');
  });

  it('refuses a secret whose declaration has a bad line, naming the line', async () => {
    await rest(server.url, '/browser/navigate', { url: `${site()}/login.html` }, ws(W));
    const refused = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'broken', key: 'password' } },
      ws(W),
    );
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toMatch(/line 1 carries a path/);
    expect(await fieldValue(W, '#password')).toBe('');
  });

  it('answers 404 naming list_secrets for a secret or key that does not exist', async () => {
    const noSecret = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'nope', key: 'password' } },
      ws(W),
    );
    expect(noSecret.status).toBe(404);
    expect(JSON.stringify(noSecret.body)).toContain('list_secrets');
    const noKey = await rest(
      server.url,
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'site-login', key: 'pin' } },
      ws(W),
    );
    expect(noKey.status).toBe(404);
    expect((noKey.body.error as { message: string }).message).toContain('its keys are password, username');
  });
});

describe('refusals, each with the fix', () => {
  const refusal = async (path: string, body: unknown) => {
    const answer = await rest(server.url, path, body, ws('refusals'));
    expect(answer.status).toBe(400);
    return (answer.body.error as { message: string }).message;
  };
  const secret = { name: 'site-login', key: 'password' };

  it('refuses both text and secret, or neither', async () => {
    const message =
      'Pass exactly one of text (what to type) or secret ({name, key} from list_secrets, typed by the server).';
    expect(await refusal('/browser/write', { selector: { css: '#password' }, text: 'x', secret })).toBe(message);
    expect(await refusal('/browser/write', { selector: { css: '#password' } })).toBe(message);
  });

  it('refuses a secret name with / or .., saying the rule', async () => {
    expect(
      await refusal('/browser/write', { selector: { css: '#password' }, secret: { name: '../etc', key: 'password' } }),
    ).toMatch(/^secret\.name: a secret name is 1-253 letters/);
    expect(
      await refusal('/browser/write', { selector: { css: '#password' }, secret: { name: 'a/b', key: 'k' } }),
    ).toMatch(/without "\.\."/);
  });

  it('says why navigate, execute_script and press_key take no secret, and that upload_file does not yet', async () => {
    expect(await refusal('/browser/navigate', { url: `${site()}/login.html`, secret })).toMatch(
      /^navigate takes no secret: a secret in a URL lands in browser history, referrers/,
    );
    expect(await refusal('/browser/execute-script', { script: 'return 1', secret })).toMatch(/exfiltration/);
    expect(await refusal('/browser/press-key', { key: 'Enter', secret })).toMatch(/^press_key takes no secret/);
    expect(await refusal('/browser/upload-file', { selector: { css: '#file' }, text: 'x', secret })).toMatch(/not yet/);
  });

  it('says the same over MCP', async () => {
    const mcp = await connectMcp(server.url, '2025-11-25', { workspace: 'refusals' });
    try {
      const answer = await mcp.call('navigate', { url: `${site()}/login.html`, secret });
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^navigate takes no secret/);
    } finally {
      await mcp.close();
    }
  });
});
