import { gridFetch } from '../../src/grid/grid.js';
import { poll } from '../../src/poll.js';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startGridProxy, type GridProxy } from '../helpers/grid-proxy.js';
import { connectMcp, gridHas, gridIdOf, rest, startServer, type RunningServer } from '../helpers/server.js';
import { toolClient } from '../helpers/tools.js';

const site = inject('siteUrl');

type Answer = Record<string, unknown>;

/**
 * A request with exactly the headers given, Host included: what a page whose name was rebound to
 * 127.0.0.1 sends (its own name as Host), or what a page on another origin sends (its Origin).
 */
async function raw(
  base: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Answer }> {
  const url = new URL(base + path);
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: text === undefined ? 'GET' : 'POST',
        headers: {
          ...(text === undefined
            ? {}
            : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
          ...headers,
        },
      },
      (response) => {
        let data = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (data += chunk));
        response.on('end', () => {
          let parsed: Answer = {};
          try {
            parsed = JSON.parse(data) as Answer;
          } catch {
            parsed = { text: data };
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'access-test', version: '1' } },
};

function messageOf(body: Answer): string {
  return (body.error as { message?: string } | undefined)?.message ?? '';
}

describe('Host and Origin (DNS rebinding, cross-site pages)', () => {
  let running: RunningServer;
  let hostPort: string;
  beforeAll(async () => {
    running = await startServer({
      ALLOWED_HOSTS: 'sf.example,*.agents.example',
      ALLOWED_ORIGINS: 'https://console.example',
    });
    hostPort = new URL(running.url).port;
  });
  afterAll(async () => {
    await running.close();
  });

  it('refuses a foreign Host on /mcp, REST and files with a 403 naming ALLOWED_HOSTS', async () => {
    const evil = { host: `evil.example:${hostPort}` };
    for (const [path, body] of [
      ['/mcp', initialize],
      ['/workspace', undefined],
      ['/browser/navigate', { url: 'https://example.com', session_id: 'x' }],
      ['/files', undefined],
      ['/openapi.json', undefined],
    ] as const) {
      const refused = await raw(running.url, path, evil, body);
      expect(refused.status, path).toBe(403);
      expect(refused.body.error, path).toMatchObject({ code: 'forbidden' });
      expect(messageOf(refused.body), path).toContain('ALLOWED_HOSTS');
    }
  });

  it('refuses a foreign Origin, even with a loopback Host, with a 403 naming ALLOWED_ORIGINS', async () => {
    for (const origin of ['http://evil.example', `http://evil.example:${hostPort}`, 'http://127.0.0.1:1', 'null']) {
      for (const [path, body] of [
        ['/mcp', initialize],
        ['/workspace', undefined],
        ['/health', undefined],
      ] as const) {
        const refused = await raw(running.url, path, { host: `127.0.0.1:${hostPort}`, origin }, body);
        expect(refused.status, `${origin} ${path}`).toBe(403);
        expect(messageOf(refused.body), `${origin} ${path}`).toContain('ALLOWED_ORIGINS');
      }
    }
  });

  it('answers loopback names, the allowed hosts and origins, and requests without an Origin', async () => {
    for (const host of [
      `127.0.0.1:${hostPort}`,
      `localhost:${hostPort}`,
      `[::1]:${hostPort}`,
      `sf.example:${hostPort}`,
      'a.agents.example',
    ]) {
      const answered = await raw(running.url, '/workspace', { host });
      expect(answered.status, host).toBe(200);
      expect(answered.body).toMatchObject({ mode: 'stateless' });
    }
    for (const origin of [`http://127.0.0.1:${hostPort}`, `http://localhost:${hostPort}`, 'https://console.example']) {
      expect((await raw(running.url, '/workspace', { host: `127.0.0.1:${hostPort}`, origin })).status, origin).toBe(
        200,
      );
    }
    const mcp = await raw(
      running.url,
      '/mcp',
      { host: `localhost:${hostPort}`, origin: `http://localhost:${hostPort}` },
      initialize,
    );
    expect(mcp.status).toBe(200);
  });

  it('lets probes answer any Host (kubelets address pods by IP), but not a foreign Origin', async () => {
    for (const path of ['/health', '/started', '/ready', '/info']) {
      expect((await raw(running.url, path, { host: `10.1.2.3:${hostPort}` })).status, path).not.toBe(403);
    }
    expect((await raw(running.url, '/openapi.json', { host: `10.1.2.3:${hostPort}` })).status).toBe(403);
  });
});

describe('the admin API without a token', () => {
  it("is closed to anyone without the banner link's session, with a 401 that says to set ADMIN_TOKEN", async () => {
    const running = await startServer();
    try {
      // The link itself is test/ui/admin-link.test.ts's: here, nobody holds its session.
      const refused = await raw(running.url, '/admin/api/workspaces/someone/files', {});
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 'unauthorized' });
      expect(messageOf(refused.body)).toContain('set ADMIN_TOKEN');
      const guessed = await raw(running.url, '/admin/api/session', {}, { code: 'a'.repeat(43) });
      expect(guessed.status).toBe(401);
      expect(messageOf(guessed.body)).toContain('restart the server for a new link, or set ADMIN_TOKEN');
      // The agent's API stays open on loopback without a token.
      expect((await raw(running.url, '/workspace', {})).status).toBe(200);
    } finally {
      await running.close();
    }
  });
});

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789';
const ADMIN = 'admin-token-0123456789';
const as = (token: string, workspace?: string) => ({
  authorization: `Bearer ${token}`,
  ...(workspace ? { 'x-workspace': workspace } : {}),
});

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  if (!(await poll(async () => ((await condition()) ? true : undefined), timeoutMs, 100))) {
    throw new Error(`not reached in time: ${what}`);
  }
}

describe('a tokens file: who may use which workspace, and whose browsers', () => {
  let running: RunningServer;
  let proxy: GridProxy;
  let dir: string;
  const handles: [string, string][] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'access-tokens-'));
    const bobDigest = createHash('sha256').update(BOB).digest('hex');
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - name: alice\n    token: ${ALICE}\n    workspaces: [alice, "alice-*"]\n  - name: bob\n    sha256: ${bobDigest}\n    workspaces: [bob]\n`,
    );
    proxy = await startGridProxy(inject('gridUrl'));
    running = await startServer(
      { TOKENS_FILE: join(dir, 'tokens.yaml'), ADMIN_TOKEN: ADMIN, BROWSERS_PER_CALLER: '1' },
      proxy.url,
    );
  });
  afterAll(async () => {
    for (const [token, handle] of handles) {
      await rest(running.url, '/browser/end-browser', { session_id: handle }, as(token));
    }
    for (const [token, workspace] of [
      [ALICE, 'alice-2'],
      [BOB, 'bob'],
      [ALICE, 'alice'],
    ]) {
      await rest(running.url, '/browser/end-browser', {}, as(token ?? '', workspace));
    }
    await running.close();
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lets each token name only its workspaces over REST, files and MCP; the admin token is separate', async () => {
    expect((await rest(running.url, '/workspace', undefined, as(ALICE, 'alice'))).body).toMatchObject({
      workspace: 'alice',
    });
    expect((await rest(running.url, '/workspace', undefined, as(ALICE, 'alice-team'))).body).toMatchObject({
      workspace: 'alice-team',
    });
    expect((await rest(running.url, '/workspace', undefined, as(BOB, 'bob'))).body).toMatchObject({ workspace: 'bob' });
    for (const [token, workspace] of [
      [ALICE, 'bob'],
      [BOB, 'alice'],
      [BOB, 'bobby'],
    ] as const) {
      const refused = await rest(running.url, '/workspace', undefined, as(token, workspace));
      expect(refused.status, `${workspace}`).toBe(403);
      expect(messageOf(refused.body)).toMatch(/TOKENS_FILE.*may use workspaces matching/);
      expect(messageOf(refused.body)).not.toContain(token);
      expect((await rest(running.url, '/files', undefined, as(token, workspace))).status).toBe(403);
    }
    expect((await rest(running.url, '/workspace', undefined, {})).status).toBe(401);
    expect((await rest(running.url, '/info')).body).toMatchObject({ auth: true });
    expect((await rest(running.url, '/workspace', undefined, as(ADMIN, 'alice'))).status).toBe(401);
    expect((await rest(running.url, '/admin/api/workspaces/bob/files', undefined, as(ALICE))).status).toBe(401);
    expect((await rest(running.url, '/admin/api/workspaces/bob/files', undefined, as(ADMIN))).status).toBe(200);

    await expect(connectMcp(running.url, '2026-07-28', { workspace: 'bob', headers: as(ALICE) })).rejects.toThrow();
    const mcp = await connectMcp(running.url, '2025-11-25', { workspace: 'alice', headers: as(ALICE) });
    try {
      expect((await mcp.call('current_workspace')).structured).toMatchObject({ workspace: 'alice', mode: 'saved' });
    } finally {
      await mcp.close();
    }
  });

  it('honours a stateless handle only for the token that opened it, over REST and MCP', async () => {
    const opened = await rest(running.url, '/browser/open-session', {}, as(ALICE));
    expect(opened.status).toBe(200);
    const handle = opened.body.session_id as string;
    handles.push([ALICE, handle]);
    expect(
      (await rest(running.url, '/browser/navigate', { url: `${site}/table.html`, session_id: handle }, as(ALICE))).body,
    ).toMatchObject({ title: 'Data table' });

    const foreign = await rest(
      running.url,
      '/browser/navigate',
      { url: `${site}/login.html`, session_id: handle },
      as(BOB),
    );
    expect(foreign.status).toBe(404);
    expect(messageOf(foreign.body)).toContain('open_session');
    expect((await rest(running.url, '/browser/end-browser', { session_id: handle }, as(BOB))).body).toEqual({
      ended: false,
    });
    const bob = await connectMcp(running.url, '2026-07-28', { headers: as(BOB) });
    try {
      expect((await bob.call('extract', { selector: { css: 'h1' }, session_id: handle })).isError).toBe(true);
      expect((await bob.call('current_workspace', { session_id: handle })).structured).toMatchObject({ browser: null });
    } finally {
      await bob.close();
    }
    const alice = await connectMcp(running.url, '2026-07-28', { headers: as(ALICE) });
    try {
      expect((await alice.call('extract', { selector: { css: 'h1' }, session_id: handle })).structured).toEqual({
        value: 'Data table',
      });
      expect((await alice.call('current_workspace', { session_id: handle })).structured).toMatchObject({
        browser: { session_id: handle, alive: true },
      });
    } finally {
      await alice.close();
    }
  });

  it('caps the browsers one token holds (BROWSERS_PER_CALLER) with a 429, per token', async () => {
    // Alice holds the stateless browser of the test before.
    const refused = await rest(running.url, '/browser/open-session', {}, as(ALICE, 'alice-2'));
    expect(refused.status).toBe(429);
    expect(messageOf(refused.body)).toContain('BROWSERS_PER_CALLER');
    const onDemand = await rest(running.url, '/browser/navigate', { url: `${site}/login.html` }, as(ALICE, 'alice-2'));
    expect(onDemand.status).toBe(429);
    expect((await rest(running.url, '/browser/open-session', {}, as(BOB, 'bob'))).status).toBe(200);
    const [, handle] = handles.pop() ?? ['', ''];
    expect((await rest(running.url, '/browser/end-browser', { session_id: handle }, as(ALICE))).body).toEqual({
      ended: true,
    });
    expect((await rest(running.url, '/browser/open-session', {}, as(ALICE, 'alice-2'))).status).toBe(200);
    expect((await rest(running.url, '/browser/end-browser', {}, as(ALICE, 'alice-2'))).body).toEqual({ ended: true });
    expect((await rest(running.url, '/browser/end-browser', {}, as(BOB, 'bob'))).body).toEqual({ ended: true });
  });

  it('does not count a browser the Grid has reaped against the cap', async () => {
    expect((await rest(running.url, '/browser/open-session', {}, as(ALICE, 'alice-3'))).status).toBe(200);
    const reaped = (await gridIdOf(running, 'alice-3')) ?? '';
    await gridFetch(`${inject('gridUrl')}/session/${reaped}`, { method: 'DELETE' });
    expect((await rest(running.url, '/browser/open-session', {}, as(ALICE, 'alice-4'))).status).toBe(200);
    expect((await rest(running.url, '/workspace', undefined, as(ALICE, 'alice-3'))).body).toMatchObject({
      browser: null,
    });
    expect((await rest(running.url, '/browser/end-browser', {}, as(ALICE, 'alice-4'))).body).toEqual({ ended: true });
  });

  it('ends at once a browser whose caller went away while it was opening', async () => {
    const before = proxy.created.length;
    proxy.holdNewSessionsMs = 1500;
    try {
      const abort = new AbortController();
      const call = fetch(`${running.url}/browser/open-session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as(ALICE) },
        body: '{}',
        signal: abort.signal,
      });
      setTimeout(() => abort.abort(), 400);
      await expect(call).rejects.toThrow();
      await until(async () => proxy.created.length > before, 'the Grid created the session');
    } finally {
      proxy.holdNewSessionsMs = 0;
    }
    const id = proxy.created[proxy.created.length - 1] ?? '';
    await until(async () => !(await gridHas(id)), 'the abandoned browser was ended');
    // Nothing of it stays behind to count against the caller.
    expect((await rest(running.url, '/browser/open-session', {}, as(ALICE, 'alice'))).status).toBe(200);
    expect((await rest(running.url, '/browser/end-browser', {}, as(ALICE, 'alice'))).body).toEqual({ ended: true });
  });
});

describe('the wait for a Grid slot', () => {
  it('is bounded by GRID_SLOT_WAIT (a 503 naming it), and a browser that comes later is ended', async () => {
    const proxy = await startGridProxy(inject('gridUrl'));
    const running = await startServer({ GRID_SLOT_WAIT: '1' }, proxy.url);
    try {
      proxy.holdNewSessionsMs = 3000;
      const started = Date.now();
      const waited = await rest(running.url, '/browser/open-session', {}, { 'x-workspace': 'slot-wait' });
      expect(waited.status).toBe(503);
      expect(messageOf(waited.body)).toContain('GRID_SLOT_WAIT');
      expect(Date.now() - started).toBeLessThan(2900);
      await until(async () => proxy.created.length > 0, 'the Grid created the session');
      await until(async () => !(await gridHas(proxy.created[0] ?? '')), 'the late browser was ended');
      expect((await rest(running.url, '/workspace', undefined, { 'x-workspace': 'slot-wait' })).body).toMatchObject({
        browser: null,
      });
    } finally {
      await running.close();
      await proxy.close();
    }
  });
});

describe('agents never see a Grid id', () => {
  it('appears in no answer or resource of a run of every tool, saved and stateless', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'access-sweep-'));
    const proxy = await startGridProxy(inject('gridUrl'));
    const running = await startServer({ FLOW_DATA_DIR: dataDir }, proxy.url);
    const seen: string[] = [];
    const liveIds = new Set<string>();
    const askGrid = async () => {
      const status = (await (await gridFetch(`${inject('gridUrl')}/status`, { method: 'GET' })).json()) as {
        value: { nodes: { slots: { session: { sessionId: string } | null }[] }[] };
      };
      for (const node of status.value.nodes) {
        for (const slot of node.slots) {
          if (slot.session) {
            liveIds.add(slot.session.sessionId);
          }
        }
      }
    };
    const mcp = await connectMcp(running.url, '2026-07-28', { workspace: 'sweep' });
    try {
      const flow = 'steps:\n  - tool: extract\n    args: {selector: {css: h1}}\n';
      const steps: [string, Record<string, unknown>][] = [
        ['open_session', {}],
        ['navigate', { url: `${site}/upload.html` }],
        ['upload_file', { selector: { css: '#file' }, text: 'x' }],
        ['navigate', { url: `${site}/login.html` }],
        ['interact', { action: 'click', selector: { css: 'h1' } }],
        ['write', { selector: { css: '#email' }, text: 'sweep@example.com' }],
        ['press_key', { key: 'Tab' }],
        ['frame', { action: 'top' }],
        ['dialog', { action: 'accept' }],
        ['resize', { width: 900, height: 700 }],
        ['execute_script', { script: 'return [location.href, document.title, navigator.userAgent]' }],
        ['extract', { selector: { css: 'h1' } }],
        ['extract', { what: 'html' }],
        ['outline', {}],
        ['screenshot', { save: true, filename: 'sweep' }],
        ['print', {}],
        ['assert', { script: 'return true', message: 'm' }],
        ['keep_file', { uri: 'workspace://files/screenshots/sweep.png' }],
        ['workspace_files', {}],
        ['save_flow', { name: 'sweep', document: flow }],
        ['list_flows', {}],
        ['get_flow', { name: 'sweep' }],
        ['run_flow', { name: 'sweep' }],
        ['delete_flow', { name: 'sweep' }],
        ['list_secrets', {}],
        ['current_workspace', {}],
        ['selenium_flow_skill', {}],
        ['extract', { selector: { css: '#nowhere' }, wait_timeout: 0 }],
      ];
      for (const [tool, args] of steps) {
        const answer = await mcp.call(tool, args);
        seen.push(answer.text, JSON.stringify(answer.structured ?? {}));
      }
      for (const uri of ['workspace://current', 'workspace://files', 'workspace://files/screenshots']) {
        seen.push(await mcp.readResource(uri));
      }
      for (const path of ['/workspace', '/files', '/flows', '/info']) {
        seen.push(JSON.stringify((await rest(running.url, path, undefined, { 'x-workspace': 'sweep' })).body));
      }
      const stateless = await rest(running.url, '/browser/open-session', {});
      const handle = stateless.body.session_id as string;
      for (const [tool, args] of [
        ['navigate', { url: `${site}/table.html` }],
        ['execute_script', { script: 'return location.href' }],
        ['extract', { selector: { css: 'h1' } }],
      ] as const) {
        seen.push(JSON.stringify((await toolClient(running.url).call(tool, { ...args, session_id: handle })).body));
      }
      seen.push(
        JSON.stringify(stateless.body),
        JSON.stringify((await rest(running.url, `/workspace?session_id=${handle}`)).body),
      );
      await askGrid();
      seen.push(JSON.stringify((await rest(running.url, '/browser/end-browser', { session_id: handle })).body));
      seen.push(JSON.stringify((await mcp.call('end_browser')).structured));
      seen.push((await mcp.call('extract', { selector: { css: 'h1' } })).text);
    } finally {
      await mcp.close();
      await running.close();
      await proxy.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    // This run's browsers were live on the Grid when it was asked: the ids checked are the real ones.
    expect(proxy.created.length).toBeGreaterThanOrEqual(2);
    for (const id of proxy.created.slice(-2)) {
      expect(liveIds.has(id), 'the Grid listed the browsers this run held').toBe(true);
    }
    const everything = seen.join('\n');
    expect(everything).toContain('Data table');
    for (const id of new Set([...liveIds, ...proxy.created])) {
      expect(everything).not.toContain(id);
    }
  });
});

describe('an MCP call abandoned while its browser opens', () => {
  it('leaves no browser on the Grid', async () => {
    const proxy = await startGridProxy(inject('gridUrl'));
    const running = await startServer({}, proxy.url);
    try {
      proxy.holdNewSessionsMs = 1500;
      const abort = new AbortController();
      const call = fetch(`${running.url}/mcp?workspace=mcp-abandoned`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'open_session', arguments: {} },
        }),
        signal: abort.signal,
      });
      setTimeout(() => abort.abort(), 400);
      await expect(call).rejects.toThrow();
      await until(async () => proxy.created.length > 0, 'the Grid created the session');
      proxy.holdNewSessionsMs = 0;
      await until(async () => !(await gridHas(proxy.created[0] ?? '')), 'the abandoned browser was ended');
      expect((await rest(running.url, '/workspace', undefined, { 'x-workspace': 'mcp-abandoned' })).body).toMatchObject(
        { browser: null },
      );
    } finally {
      await running.close();
      await proxy.close();
    }
  });
});
