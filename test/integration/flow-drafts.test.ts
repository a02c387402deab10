import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectMcp, rest, startServer, type RunningServer } from '../helpers/server.js';
import { secretsDir } from '../helpers/secrets.js';

let running: RunningServer;
const site = () => inject('siteUrl');
const PASSWORD = 'Draft-canary 93x!';

beforeAll(async () => {
  running = await startServer({
    FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-drafts-')),
    SECRETS_DIRS: await secretsDir({ site: { password: PASSWORD, _allowed_urls: `${site()}\n` } }),
    SECRETS_KUBERNETES: 'off',
  });
});
afterAll(async () => {
  await running.close();
});

describe('draft_flow', () => {
  it('turns a 6-call login + read session into a flow that, saved and run with other params, reproduces it', async () => {
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'draft-login' });
    try {
      const ok = async (tool: string, args: Record<string, unknown>) => {
        const answer = await mcp.call(tool, args);
        expect(answer.isError, `${tool}: ${answer.text}`).toBe(false);
        return answer;
      };
      await ok('navigate', { url: `${site()}/login.html` });
      await ok('write', { selector: { css: '#email' }, text: 'ada@example.com' });
      await ok('write', { selector: { css: '#password' }, secret: { name: 'site', key: 'password' } });
      // A failed call is never drafted.
      expect(
        (await mcp.call('interact', { action: 'click', selector: { css: '#nope' }, wait_timeout: 0 })).isError,
      ).toBe(true);
      await ok('interact', { action: 'click', selector: { css: '#submit' } });
      await ok('extract', { selector: { css: '#greeting' } });
      await ok('extract', { selector: { css: '#greeting' } }); // a repeat: dropped
      await ok('extract', { selector: { css: '#to-table' } });

      const draft = await ok('draft_flow', { last: 7, name: 'relogin' });
      expect(draft.structured).toMatchObject({
        name: 'relogin',
        parameters: ['email'],
        calls: 6,
        duplicates_dropped: 1,
      });
      const yaml = (draft.structured as { yaml: string }).yaml;
      expect(yaml).toContain('text: ${email}');
      expect(yaml).toMatch(/secret:\s+name: site\s+key: password/);
      expect(yaml).not.toContain('#nope');
      expect(JSON.stringify(draft)).not.toContain(PASSWORD);
      expect(await mcp.call('list_flows', { everywhere: true })).toMatchObject({ structured: { flows: [] } });

      expect((await ok('save_flow', { name: 'relogin', document: yaml })).structured).toMatchObject({ created: true });
      await ok('end_browser', {});
      const run = await ok('run_flow', { name: 'relogin', params: { email: 'grace@example.com' } });
      expect(run.structured).toMatchObject({
        status: 'ok',
        steps_run: 6,
        // (the page's address carries the password: the GET form puts it there, so url and title are withheld)
        returned: { read_1: { value: 'Welcome, grace@example.com' }, read_2: { value: 'See the table' } },
      });
      expect(JSON.stringify(run)).not.toContain(PASSWORD);
      const record = JSON.stringify(await running.server.store.get('named:draft-login'));
      expect(record).not.toContain(PASSWORD);
      await ok('end_browser', {});
    } finally {
      await mcp.close();
    }
  });

  it('refuses with nothing recorded, a last out of range, and a stateless caller, naming the fix', async () => {
    const fresh = await rest(running.url, '/flows/draft', { last: 5 }, { 'X-Workspace': 'draft-empty' });
    expect(fresh.status).toBe(400);
    expect((fresh.body.error as { message: string }).message).toMatch(/Nothing is recorded in this workspace yet/);
    for (const [last, sentence] of [
      [0, 'last must be at least 1 (got 0); pass a larger last.'],
      [31, 'last must be at most 30 (got 31); pass a smaller last.'],
      [2.5, 'last must be a whole number (got 2.5); pass a whole number.'],
    ] as const) {
      const wrong = await rest(running.url, '/flows/draft', { last }, { 'X-Workspace': 'draft-empty' });
      expect(wrong.status).toBe(400);
      expect((wrong.body.error as { message: string }).message).toBe(sentence);
    }
    const stateless = await rest(running.url, '/flows/draft', { last: 5 });
    expect(stateless.status).toBe(400);
    expect((stateless.body.error as { message: string }).message).toMatch(/name your workspace/);
  });
});

describe('a flow run', () => {
  it('marks the files it makes made_by {flow, step}, kept ones too, and tells each step as progress', async () => {
    const ws = { 'X-Workspace': 'draft-files' };
    const saved = await fetch(`${running.url}/flows/shots`, {
      method: 'PUT',
      headers: { ...ws, 'content-type': 'application/json' },
      body: JSON.stringify({
        steps: [
          { tool: 'navigate', args: { url: `${site()}/login.html` } },
          { id: 'shot', tool: 'screenshot', args: { save: true, filename: 'login' } },
          { tool: 'print', args: { filename: 'login' } },
        ],
      }),
    });
    expect(saved.status).toBe(200);
    const client = new Client(
      { name: 'progress', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const url = new URL(`${running.url}/mcp`);
    url.searchParams.set('workspace', 'draft-files');
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      const heard: { progress: number; total?: number }[] = [];
      const run = await client.callTool({ name: 'flow_shots', arguments: {} }, { onprogress: (p) => heard.push(p) });
      expect(run.structuredContent).toMatchObject({ status: 'ok', steps_run: 3 });
      expect(heard.map((p) => [p.progress, p.total])).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
    } finally {
      await client.close();
    }
    const shots = await rest(running.url, '/files?folder=screenshots', undefined, ws);
    expect(shots.body.files).toEqual([
      expect.objectContaining({ name: 'login.png', made_by: { flow: 'shots', step: 'shot' } }),
    ]);
    const files = await rest(running.url, '/files', undefined, ws);
    expect(files.body.files).toEqual([
      expect.objectContaining({ name: 'login.pdf', made_by: { flow: 'shots', step: 3 } }),
    ]);
    // Kept by hand later, the screenshot still says which run took it.
    const kept = await rest(running.url, '/files/kept', { uri: 'workspace://files/screenshots/login.png' }, ws);
    expect(kept.status).toBe(200);
    const after = await rest(running.url, '/files', undefined, ws);
    expect(after.body.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'login.png', made_by: { flow: 'shots', step: 'shot' } }),
      ]),
    );
    // A file made by hand carries no mark.
    await rest(running.url, '/browser/screenshot', { save: true, filename: 'by-hand' }, ws);
    const mixed = await rest(running.url, '/files?folder=screenshots', undefined, ws);
    expect(
      (mixed.body.files as { name: string; made_by?: unknown }[]).find((f) => f.name === 'by-hand.png')?.made_by,
    ).toBe(undefined);
    await rest(running.url, '/browser/end-browser', {}, ws);
  });
});
