import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { connectMcp, type ProtocolEra } from '../helpers/server.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';
import { secretsDir } from '../helpers/secrets.js';

/** The value that must never come back: in any answer, error, record, stored flow or log line. */
const CANARY = 'Canary-7f3a91 pw!';
const FORMS = [
  CANARY,
  encodeURIComponent(CANARY),
  encodeURIComponent(CANARY).replace(/%20/g, '+'),
  Buffer.from(CANARY).toString('base64'),
  CANARY.toUpperCase(),
  CANARY.toLowerCase(),
  Array.from(CANARY, (c) => `&#${c.codePointAt(0)};`).join(''),
  Array.from(CANARY, (c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`).join(''),
  Array.from(CANARY, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join(''),
];

/** the server under attack: its own process, so its whole log can be grepped */
let served: Replica;
let base: string;
let dataDir: string;
let other: FixtureSite;
/** every answer this test received, verbatim */
const answers: string[] = [];
const site = () => inject('siteUrl');
const sitePort = () => new URL(site()).port;

async function http(
  method: string,
  path: string,
  body?: unknown,
  workspace = 'leak',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(base + path, {
    method,
    headers: { 'x-workspace': workspace, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

beforeAll(async () => {
  other = await startFixtureSite();
  const otherPort = new URL(other.url).port;
  const dir = await secretsDir({
    canary: { password: CANARY, _allowed_urls: `${site()}\n` },
    // A naive prefix match would let http://127.0.0.1:41234 through for http://127.0.0.1:4123.
    'canary-prefix': { password: CANARY, _allowed_urls: `http://127.0.0.1:${otherPort.slice(0, -1)}\n` },
    // A naive host match would let localhost.localhost through for localhost.
    'canary-host': { password: CANARY, _allowed_urls: `http://localhost:${sitePort()}\n` },
  });
  dataDir = await mkdtemp(join(tmpdir(), 'sf-leak-data-'));
  served = await spawnReplica({
    GRID_URL: inject('gridUrl'),
    SECRETS_DIRS: dir,
    SECRETS_KUBERNETES: 'off',
    SECRETS_TTL: '0',
    FLOW_DATA_DIR: dataDir,
    LOG_LEVEL: 'trace',
  });
  base = served.url;
});

afterAll(async () => {
  await http('POST', '/browser/end-browser', {}).catch(() => undefined);
  await served?.kill('SIGTERM');
  await other?.close();
});

const fieldIsEmpty = async (css: string) => {
  const read = await http('POST', '/browser/extract', { selector: { css }, what: 'value' });
  expect(read.body.value).toBe('');
};

describe('a bound secret value never comes back', { timeout: 180_000 }, () => {
  it('over HTTP: the answer, the next page, the workspace record', async () => {
    await http('POST', '/browser/navigate', { url: `${site()}/login.html` });
    await http('POST', '/browser/write', { selector: { css: '#email' }, text: 'ada@example.com' });
    const typed = await http('POST', '/browser/write', {
      selector: { css: '#password' },
      secret: { name: 'canary', key: 'password' },
      submit: true,
    });
    expect(typed.status).toBe(200);
    expect(typed.body).toMatchObject({ value: null, secret: { name: 'canary', key: 'password' }, withheld: true });
    await http('POST', '/browser/outline', {});
    await http('POST', '/browser/navigate', { action: 'refresh' });
    await http('GET', '/workspace');
    await http('GET', '/secrets');
  });

  it.each(['2025-11-25', '2026-07-28'] as ProtocolEra[])('over MCP (%s): tool results and resources', async (era) => {
    const mcp = await connectMcp(base, era, { workspace: `leak-mcp-${era}` });
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const answer = await mcp.call(name, args);
      answers.push(JSON.stringify(answer));
      return answer;
    };
    try {
      await call('navigate', { url: `${site()}/login.html` });
      const typed = await call('write', {
        selector: { css: '#password' },
        secret: { name: 'canary', key: 'password' },
        submit: true,
      });
      expect(typed.isError).toBe(false);
      expect(typed.structured).toMatchObject({ value: null, secret: { name: 'canary', key: 'password' } });
      // A page that shows the value re-encoded: each form is blanked in the tool result too.
      await call('navigate', { url: `${site()}/hostile/encode.html` });
      expect(
        (await call('write', { selector: { css: '#password' }, secret: { name: 'canary', key: 'password' } })).isError,
      ).toBe(false);
      for (const id of ['decimal', 'hex', 'unicode', 'bytes', 'upper', 'mostly']) {
        const read = await call('extract', { selector: { css: `#${id}` } });
        expect(read.structured, id).toMatchObject({ value: '', withheld: true });
      }
      await call('current_workspace');
      await call('list_secrets');
      answers.push(await mcp.readResource('workspace://current'), await mcp.readResource('secret://secrets'));
      // errors carry no value either
      expect(
        (
          await call('write', {
            selector: { css: '#nope' },
            secret: { name: 'canary', key: 'password' },
            wait_timeout: 0,
          })
        ).isError,
      ).toBe(true);
      expect(
        (await call('navigate', { url: `${site()}/login.html`, secret: { name: 'canary', key: 'password' } })).isError,
      ).toBe(true);
    } finally {
      await call('end_browser').catch(() => undefined);
      await mcp.close();
    }
  });

  it('through a saved flow: the run report, the stored document, a failing run', async () => {
    const mcp = await connectMcp(base, '2026-07-28', { workspace: 'leak' });
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const answer = await mcp.call(name, args);
      answers.push(JSON.stringify(answer));
      return answer;
    };
    try {
      const saved = await call('save_flow', {
        name: 'login',
        document: {
          description: 'Log in to the fixture site',
          steps: [
            { tool: 'navigate', args: { url: `${site()}/login.html` } },
            { tool: 'write', args: { selector: { css: '#email' }, text: 'ada@example.com' } },
            {
              tool: 'write',
              id: 'password',
              args: { selector: { css: '#password' }, secret: { name: 'canary', key: 'password' }, submit: true },
            },
          ],
        },
      });
      expect(saved.isError, saved.text).toBe(false);
      const run = await call('run_flow', { name: 'login', verbose: true });
      expect(run.isError, run.text).toBe(false);
      expect(run.structured).toMatchObject({ status: 'ok', steps_run: 3 });
      await call('get_flow', { name: 'login' });
      await call('list_flows', { everywhere: true });
      // A flow naming a secret that does not exist saves (catalogues change), and its run fails at that step.
      const missing = await call('save_flow', {
        name: 'missing',
        document: {
          steps: [
            { tool: 'write', args: { selector: { css: '#password' }, secret: { name: 'gone', key: 'password' } } },
          ],
        },
      });
      expect(missing.isError, missing.text).toBe(false);
      const failed = await call('run_flow', { name: 'missing' });
      expect(JSON.stringify(failed.structured ?? failed.text), JSON.stringify(failed)).toMatch(/list_secrets/);
    } finally {
      await mcp.close();
    }
  });

  it('is refused before any keystroke on another port, a port that merely starts alike, and a host suffix', async () => {
    const refusedHere = async (url: string, name: string) => {
      await http('POST', '/browser/navigate', { url });
      const refused = await http('POST', '/browser/write', {
        selector: { css: '#password' },
        secret: { name, key: 'password' },
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      await fieldIsEmpty('#password');
    };
    await refusedHere(`${other.url}/login.html`, 'canary');
    await refusedHere(`${other.url}/login.html`, 'canary-prefix');
    await refusedHere(`http://localhost.localhost:${sitePort()}/login.html`, 'canary-host');
    // the same secret on its own origin is typed (and not read back here)
    await http('POST', '/browser/navigate', { url: `http://localhost:${sitePort()}/login.html` });
    expect(
      (
        await http('POST', '/browser/write', {
          selector: { css: '#password' },
          secret: { name: 'canary-host', key: 'password' },
        })
      ).status,
    ).toBe(200);
  });

  it('audits every bind with the origin only, refused ones at warn', () => {
    const events = served
      .output()
      .split('\n')
      .filter((line) => line.includes('"secret_bind"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.filter((e) => e.allowed === true).length).toBeGreaterThanOrEqual(4);
    const refused = events.filter((e) => e.allowed === false);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(refused.every((e) => e.level === 40)).toBe(true);
    expect(refused.map((e) => e.origin)).toContain(other.url);
    // a flow step's bind names the flow and the step (its id)
    expect(
      events.some((e) => e.workspace === 'leak' && e.flow === 'login' && e.step === 'password' && e.allowed === true),
    ).toBe(true);
    expect(events.some((e) => e.workspace === 'leak' && e.flow === null && e.allowed === true)).toBe(true);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(
        expect.arrayContaining(['workspace', 'flow', 'step', 'secret', 'key', 'origin', 'allowed']),
      );
      expect(String(event.origin)).not.toMatch(/\/login|\?/);
    }
  });

  it('a draft of a session that typed it is a secret: reference, and so is the flow saved from it', async () => {
    const ws = 'leak-draft';
    await http('POST', '/browser/navigate', { url: `${site()}/login.html` }, ws);
    await http('POST', '/browser/write', { selector: { css: '#email' }, text: 'ada@example.com' }, ws);
    const typed = await http(
      'POST',
      '/browser/write',
      { selector: { css: '#password' }, secret: { name: 'canary', key: 'password' } },
      ws,
    );
    expect(typed.status).toBe(200);
    const draft = await http('POST', '/flows/draft', { last: 3, name: 'leaky' }, ws);
    expect(draft.status).toBe(200);
    expect(draft.body.yaml).toMatch(/secret:\s+name: canary\s+key: password/);
    expect(draft.body.parameters).toEqual(['email']);
    const saved = await fetch(`${base}/flows/leaky`, {
      method: 'PUT',
      headers: { 'x-workspace': ws, 'content-type': 'application/yaml' },
      body: draft.body.yaml as string,
    });
    answers.push(await saved.text());
    expect(saved.status).toBe(200);
    await http('POST', '/flows/leaky/run', { params: { email: 'grace@example.com' } }, ws);
    await http('POST', '/browser/end-browser', {}, ws);
  });

  it('appears nowhere: 0 hits in every answer, stored flow, and the whole log', async () => {
    const stored: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          await walk(path);
        } else {
          stored.push(await readFile(path, 'utf8'));
        }
      }
    };
    await walk(dataDir);
    expect(stored.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(20);
    expect(served.output().length).toBeGreaterThan(0);
    const haystacks = { answers: answers.join('\n'), stored: stored.join('\n'), log: served.output() };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const form of FORMS) {
        expect(text.includes(form), `${where} carries ${JSON.stringify(form)}`).toBe(false);
      }
    }
  });
});
