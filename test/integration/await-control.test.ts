import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type RawClientDispatch,
} from '@modelcontextprotocol/ext-tasks/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Capabilities, Session, WebDriver } from 'selenium-webdriver';
import http from 'selenium-webdriver/http/index.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { gridFetch } from '../../src/grid/grid.js';
import { startFixtureSite } from '../fixtures/site.js';
import { startGridProxy } from '../helpers/grid-proxy.js';
import { gridIdOf, rest, startServer, testBrowser, type RunningServer } from '../helpers/server.js';

const ADMIN = 'await-admin-token';
const TOKEN = 'await-bearer-token';
const admin = { authorization: `Bearer ${ADMIN}` };
const siteUrl = inject('siteUrl');
const gridUrl = inject('gridUrl');
let running: RunningServer;

const agentOf = (workspace: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace });

beforeAll(async () => {
  running = await startServer({
    ADMIN_TOKEN: ADMIN,
    MCP_AUTH_TOKEN: TOKEN,
    FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'await-control-')),
  });
}, 120_000);

afterAll(async () => {
  await running.close();
});

async function control(method: 'POST' | 'DELETE', workspace: string, who = 'Kelly') {
  const response = await fetch(`${running.url}/admin/api/workspaces/${workspace}/control`, {
    method,
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ who }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A workspace with a browser on the welcome page, ended (and its Control released) afterwards. */
async function withBrowser(workspace: string, body: (agent: Record<string, string>) => Promise<void>): Promise<void> {
  const agent = agentOf(workspace);
  const opened = await rest(running.url, '/browser/navigate', { url: `${siteUrl}/welcome.html` }, agent);
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  try {
    await body(agent);
  } finally {
    await control('DELETE', workspace).catch(() => undefined);
    await rest(running.url, '/browser/end-browser', {}, agent).catch(() => undefined);
  }
}

/** Kelly takes the workspace's browser; resolves once its pages are followed (the list is written, empty). */
async function takenAndFollowed(workspace: string): Promise<{ gridId: string; visited: () => Promise<string> }> {
  expect((await control('POST', workspace)).body.state).toBe('held');
  const gridId = (await gridIdOf(running, workspace)) ?? '';
  // The browser matrix: this is the browser the run is for.
  expect((await running.server.store.get(`named:${workspace}`))?.browser).toBe(testBrowser());
  const visited = async () => (await running.server.liveView.store.get(`visited:${workspace}`)) ?? '';
  await expect.poll(visited).toContain('"pages"');
  return { gridId, visited };
}

/** The person's own hands: the same Grid session, driven over WebDriver (a stand-in for VNC input). */
function personAt(gridId: string): WebDriver {
  return new WebDriver(new Session(gridId, new Capabilities({})), new http.Executor(new http.HttpClient(gridUrl)));
}

async function mcpClient(workspace: string): Promise<Client> {
  const url = new URL(`${running.url}/mcp`);
  url.searchParams.set('workspace', workspace);
  const client = new Client({ name: 'await-control', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  return client;
}

/** What one JSON-RPC exchange answered, as JSON or as the last message of an event stream. */
function rpcAnswer(text: string): { result?: unknown; error?: { code: number; message: string } } {
  const lines = text.split('\n').filter((line) => line.startsWith('data:'));
  return JSON.parse(lines.length > 0 ? (lines.at(-1) ?? '').slice(5) : text) as { result?: unknown };
}

/**
 * A client of the 2026-07-28 Tasks extension: the SDK Client (discover, capabilities) with
 * ext-tasks' own requester session on it. The session frames tools/call and tasks/* itself and
 * sends them through rawDispatch, a plain Streamable HTTP POST with the standard headers.
 */
async function taskSession(workspace: string) {
  const url = new URL(`${running.url}/mcp`);
  url.searchParams.set('workspace', workspace);
  const headers = { authorization: `Bearer ${TOKEN}` };
  const clientInfo = { name: 'await-task', version: '1.0.0' };
  const client = new ModernClient(clientInfo, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(url, { requestInit: { headers } }));
  const sent: string[] = [];
  let id = 0;
  const rawDispatch: RawClientDispatch = async (request, options) => {
    const { method, params } = request as { method: string; params?: Record<string, unknown> };
    sent.push(method);
    const name = method === 'tools/call' ? params?.name : params?.taskId;
    const response = await fetch(url, {
      method: 'POST',
      signal: options?.signal,
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...(request as object) }),
    });
    const answer = rpcAnswer(await response.text());
    return answer.error
      ? { kind: 'error', error: answer.error }
      : { kind: 'result', result: answer.result as Record<string, never> };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: `await-task-${workspace}`,
    rawDispatch,
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo, clientCapabilities: {} },
  });
  /** One request outside the session, with the 2026-07-28 envelope (and the extension, unless told not to). */
  const framed = (method: string, params: Record<string, unknown>, declare = true) =>
    rawDispatch({
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': clientInfo,
          'io.modelcontextprotocol/clientCapabilities': declare
            ? { extensions: { 'io.modelcontextprotocol/tasks': {} } }
            : {},
        },
      },
    });
  return {
    session,
    sent,
    framed,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}

describe('watching a held browser', () => {
  it('asks the Grid whether it runs it, never the browser (so nobody using it still idles it out)', async () => {
    const proxy = await startGridProxy(gridUrl);
    const watched = await startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN }, proxy.url);
    const agent = agentOf('await-idle');
    try {
      expect((await rest(watched.url, '/browser/navigate', { url: `${siteUrl}/welcome.html` }, agent)).status).toBe(
        200,
      );
      const taken = await fetch(`${watched.url}/admin/api/workspaces/await-idle/control`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ who: 'Kelly' }),
      });
      expect(((await taken.json()) as { state: string }).state).toBe('held');
      const gridId = (await gridIdOf(watched, 'await-idle')) ?? '';
      const mark = proxy.requests.length;
      const waiting = rest(watched.url, '/browser/await-control', {}, agent);
      // The wait asks at once and every 5 s: two asks, and not one of them to the browser.
      const asks = () => proxy.requests.slice(mark).filter((r) => r === 'POST /graphql').length;
      await expect.poll(asks, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      const during = proxy.requests.slice(mark);
      expect(during.filter((r) => r.includes(gridId))).toEqual([]);
      const back = await fetch(`${watched.url}/admin/api/workspaces/await-idle/control`, {
        method: 'DELETE',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ who: 'Kelly' }),
      });
      expect(back.status).toBe(200);
      expect((await waiting).body).toMatchObject({ handed_back: true, who: 'Kelly' });
    } finally {
      await rest(watched.url, '/browser/end-browser', {}, agent).catch(() => undefined);
      await watched.close();
      await proxy.close();
    }
  });
});

describe('await_control as an MCP task (2026-07-28 Tasks extension)', () => {
  it('is a task while Kelly holds the browser, working until the hand-back, then the hand-back', async () => {
    await withBrowser('await-task', async () => {
      const { gridId, visited } = await takenAndFollowed('await-task');
      const tasks = await taskSession('await-task');
      try {
        const execution = await tasks.session.callTool('await_control', {});
        expect(execution.kind).toBe('task');
        const seen: string[] = [];
        const settled = execution.settle({
          onEvent: (event) => {
            if (event.type === 'task') {
              seen.push(`${event.task.status}:${event.task.statusMessage ?? ''}`);
            }
          },
        });
        // Polled, and still working while the person holds on (and navigates).
        await expect
          .poll(() => tasks.sent.filter((m) => m === 'tasks/get').length, { timeout: 10_000 })
          .toBeGreaterThan(1);
        await personAt(gridId).get(`${siteUrl}/table.html`);
        await expect.poll(visited).toContain('Data table');
        expect(seen.every((s) => s === 'working:waiting for Kelly to hand back')).toBe(true);
        expect(seen.length).toBeGreaterThan(0);

        expect((await control('DELETE', 'await-task')).body).toEqual({ state: 'handed_back' });
        const { outcome } = await settled;
        const result = resultFromTaskOutcome(outcome) as { structuredContent?: Record<string, unknown> };
        expect(result.structuredContent).toMatchObject({
          handed_back: true,
          who: 'Kelly',
          url: `${siteUrl}/table.html`,
          visited: [{ url: `${siteUrl}/table.html`, title: 'Data table' }],
        });
        // A settled task answers the same result to every later poll, through any replica.
        const again = await tasks.framed('tasks/get', { taskId: execution.handle?.taskId });
        expect(again).toMatchObject({ kind: 'result', result: { status: 'completed', result } });
      } finally {
        await tasks.close();
      }
    });
  });

  it('answers one task however often a looping agent asks while the person holds on', async () => {
    await withBrowser('await-task-loop', async () => {
      await takenAndFollowed('await-task-loop');
      const tasks = await taskSession('await-task-loop');
      try {
        const ids = new Set<unknown>();
        for (let i = 0; i < 20; i += 1) {
          const answer = (await tasks.framed('tools/call', { name: 'await_control', arguments: {} })) as {
            result?: { resultType?: string; taskId?: unknown };
          };
          expect(answer.result?.resultType).toBe('task');
          ids.add(answer.result?.taskId);
        }
        expect(ids.size).toBe(1);
      } finally {
        await tasks.close();
      }
    });
  });

  it('answers at once, no task, when nobody has control', async () => {
    await withBrowser('await-task-nobody', async () => {
      const tasks = await taskSession('await-task-nobody');
      try {
        const execution = await tasks.session.callTool('await_control', {});
        expect(execution.kind).toBe('immediate');
        const result = resultFromTaskOutcome((await execution.settle()).outcome) as {
          structuredContent?: Record<string, unknown>;
        };
        expect(result.structuredContent).toMatchObject({ handed_back: false });
      } finally {
        await tasks.close();
      }
    });
  });

  it('cancelled, ends the task and leaves the episode held', async () => {
    await withBrowser('await-task-cancel', async (agent) => {
      expect((await control('POST', 'await-task-cancel')).body.state).toBe('held');
      const tasks = await taskSession('await-task-cancel');
      try {
        const execution = await tasks.session.callTool('await_control', {});
        expect(execution.kind).toBe('task');
        await execution.cancel();
        expect(tasks.sent).toContain('tasks/cancel');
        const after = await tasks.framed('tasks/get', { taskId: execution.handle?.taskId });
        expect(after).toMatchObject({ kind: 'result', result: { status: 'cancelled' } });
        expect((await running.server.liveView.controls.episode('await-task-cancel'))?.state).toBe('held');
        expect((await rest(running.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, agent)).status).toBe(
          409,
        );
        // Someone else's task id is unknown to this caller; an unknown id is -32602.
        const stranger = await taskSession('await-task-other');
        try {
          const foreign = await stranger.framed('tasks/get', { taskId: execution.handle?.taskId });
          expect(foreign).toMatchObject({ kind: 'error', error: { code: -32602 } });
        } finally {
          await stranger.close();
        }
      } finally {
        await tasks.close();
      }
    });
  });

  it('refuses tasks/get, tasks/update and tasks/cancel from a request that does not declare the extension (-32021)', async () => {
    const tasks = await taskSession('await-task-plain');
    try {
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const refused = await tasks.framed(method, { taskId: 'x' }, false);
        expect(refused, method).toMatchObject({ kind: 'error', error: { code: -32021 } });
      }
      // Declared, an update finds no task to give input to: none of ours ever asks for any.
      expect(await tasks.framed('tasks/update', { taskId: 'x', inputResponses: {} })).toMatchObject({
        kind: 'error',
        error: { code: -32602 },
      });
    } finally {
      await tasks.close();
    }
  });
});

describe('await_control', () => {
  it('answers at once when nobody has control', async () => {
    await withBrowser('await-nobody', async (agent) => {
      const answer = await rest(running.url, '/browser/await-control', {}, agent);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        handed_back: false,
        message: 'nobody has control of this browser: carry on.',
      });
    });
  });

  it('long-polls until the hand-back, listing the pages the person reached and the page now', async () => {
    await withBrowser('await-visits', async (agent) => {
      const { gridId, visited } = await takenAndFollowed('await-visits');

      let settled = false;
      const waiting = rest(running.url, '/browser/await-control', {}, agent).finally(() => {
        settled = true;
      });
      const person = personAt(gridId);
      await person.get(`${siteUrl}/table.html`);
      // A person reads a page before moving on: its title is listed while they are on it.
      await expect.poll(visited).toContain('Data table');
      await person.get(`${siteUrl}/login.html`);
      await expect.poll(visited).toContain('login.html');
      expect(settled).toBe(false);

      expect((await control('DELETE', 'await-visits')).body).toEqual({ state: 'handed_back' });
      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        handed_back: true,
        who: 'Kelly',
        dropped: 0,
        url: `${siteUrl}/login.html`,
      });
      const pages = answer.body.visited as { url: string; title: string }[];
      expect(pages.map((p) => p.url)).toEqual([`${siteUrl}/table.html`, `${siteUrl}/login.html`]);
      expect(pages[0]?.title).toBe('Data table');
      expect(answer.body.held_for).toBeGreaterThanOrEqual(0);
      expect(String(answer.body.outline)).toMatch(/input|button/);
      // The hand-back was said here: the next result carries no notice of it.
      const next = await rest(running.url, '/browser/extract', { selector: { css: 'h1' } }, agent);
      expect(next.body.control).toBeUndefined();
    });
  });

  it('lists a page the person reaches the moment the grant is answered', async () => {
    await withBrowser('await-first', async (agent) => {
      expect((await control('POST', 'await-first')).body.state).toBe('held');
      // No wait for the list: the recorder started before the grant was answered.
      const gridId = (await gridIdOf(running, 'await-first')) ?? '';
      await personAt(gridId).executeScript("history.pushState({}, '', '?first')");
      await control('DELETE', 'await-first');
      const answer = await rest(running.url, '/browser/await-control', {}, agent);
      expect((answer.body.visited as { url: string }[]).map((p) => p.url)).toEqual([`${siteUrl}/welcome.html?first`]);
    });
  });

  it('lists at most 100 pages, the oldest dropped and counted', async () => {
    await withBrowser('await-many', async (agent) => {
      const { gridId, visited } = await takenAndFollowed('await-many');
      await personAt(gridId).executeScript("for (let i = 1; i <= 105; i++) history.pushState({}, '', '?page=' + i)");
      await expect.poll(visited).toContain('?page=105');
      await control('DELETE', 'await-many');
      const answer = await rest(running.url, '/browser/await-control', {}, agent);
      const pages = answer.body.visited as { url: string }[];
      expect(pages).toHaveLength(100);
      expect(answer.body.dropped).toBe(5);
      expect(pages[0]?.url).toBe(`${siteUrl}/welcome.html?page=6`);
      expect(pages[99]?.url).toBe(`${siteUrl}/welcome.html?page=105`);
    });
  });

  it('over MCP sends progress while it waits, and returns at the hand-back', async () => {
    await withBrowser('await-mcp', async () => {
      expect((await control('POST', 'await-mcp')).body.state).toBe('held');
      const client = await mcpClient('await-mcp');
      try {
        const heard: { message?: string }[] = [];
        const answer = client.callTool({ name: 'await_control', arguments: {} }, undefined, {
          onprogress: (p) => heard.push(p),
        });
        await expect.poll(() => heard.length).toBeGreaterThan(0);
        expect(heard[0]?.message).toBe('waiting for Kelly to hand back');
        await control('DELETE', 'await-mcp');
        const result = (await answer) as { structuredContent?: Record<string, unknown> };
        expect(result.structuredContent).toMatchObject({
          handed_back: true,
          who: 'Kelly',
          url: `${siteUrl}/welcome.html`,
        });
      } finally {
        await client.close();
      }
    });
  });

  it('cancelled, leaves the episode as it was, and the hand-back is still answered later', async () => {
    await withBrowser('await-cancel', async (agent) => {
      expect((await control('POST', 'await-cancel')).body.state).toBe('held');
      const client = await mcpClient('await-cancel');
      const abort = new AbortController();
      try {
        const heard: unknown[] = [];
        const answer = client.callTool({ name: 'await_control', arguments: {} }, undefined, {
          onprogress: (p) => heard.push(p),
          signal: abort.signal,
        });
        await expect.poll(() => heard.length).toBeGreaterThan(0);
        abort.abort();
        await expect(answer).rejects.toThrow();
      } finally {
        await client.close();
      }
      expect((await running.server.liveView.controls.episode('await-cancel'))?.state).toBe('held');
      expect((await rest(running.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, agent)).status).toBe(409);
      await control('DELETE', 'await-cancel');
      const later = await rest(running.url, '/browser/await-control', {}, agent);
      expect(later.body).toMatchObject({ handed_back: true, who: 'Kelly' });
    });
  });

  it('answers ended when the Grid loses the browser while it is held', async () => {
    await withBrowser('await-reaped', async (agent) => {
      expect((await control('POST', 'await-reaped')).body.state).toBe('held');
      const gridId = (await gridIdOf(running, 'await-reaped')) ?? '';
      // Reaped behind the server's back: the Grid ends the session, nothing here is told.
      expect((await gridFetch(`${gridUrl}/session/${gridId}`, { method: 'DELETE' })).ok).toBe(true);
      const answer = await rest(running.url, '/browser/await-control', {}, agent);
      expect(answer.body).toMatchObject({
        handed_back: true,
        ended: true,
        message: 'the browser ended while Kelly had control: call open_session.',
      });
      expect(await running.server.liveView.controls.episode('await-reaped')).toBeUndefined();
    });
  });

  it('is not a flow step, and a flow stops at a refused step even with onError: continue', async () => {
    await withBrowser('await-flow', async (agent) => {
      const asStep = await fetch(`${running.url}/flows/waits`, {
        method: 'PUT',
        headers: { ...agent, 'content-type': 'application/json' },
        body: JSON.stringify({ steps: [{ tool: 'await_control', args: {} }] }),
      });
      expect(asStep.status).toBe(400);
      // Step 1 tells this test's own site when it runs, then holds the run for 1.5 s: the person
      // asks then, so step 2 meets the request (run_flow holds the turn until its end).
      const site = await startFixtureSite();
      try {
        const saved = await fetch(`${running.url}/flows/moves`, {
          method: 'PUT',
          headers: { ...agent, 'content-type': 'application/json' },
          body: JSON.stringify({
            steps: [
              {
                tool: 'execute_script',
                args: {
                  script: `fetch(${JSON.stringify(`${site.url}/collect?event=flow-running`)}, { method: 'POST', mode: 'no-cors', body: '' }); return new Promise((resolve) => setTimeout(() => resolve(1), 1500))`,
                },
              },
              { tool: 'navigate', args: { url: `${siteUrl}/table.html` }, onError: 'continue' },
              { tool: 'navigate', args: { url: `${siteUrl}/login.html` } },
            ],
          }),
        });
        expect(saved.status).toBe(200);
        const flowRun = rest(running.url, '/flows/moves/run', {}, agent);
        await expect.poll(() => site.received.some((r) => r.event === 'flow-running'), { timeout: 20_000 }).toBe(true);
        expect((await control('POST', 'await-flow')).body.state).toBe('requested');
        const run = await flowRun;
        expect(run.body).toMatchObject({ status: 'failed', steps_run: 2 });
        const steps = run.body.steps as { ok: boolean; error?: { message: string } }[];
        expect(steps.map((s) => s.ok)).toEqual([true, false]);
        expect(steps[1]?.error?.message).toMatch(
          /^Kelly asked for control of this browser at \d\d:\d\d UTC\. Call await_control/,
        );
      } finally {
        await site.close();
      }
      await expect.poll(async () => (await running.server.liveView.controls.episode('await-flow'))?.state).toBe('held');
      const whole = await rest(running.url, '/flows/moves/run', {}, agent);
      expect(whole.status).toBe(409);
      await control('DELETE', 'await-flow');
      const where = await rest(running.url, '/workspace', undefined, agent);
      expect(where.body.url).toBe(`${siteUrl}/welcome.html`);
    });
  });
});
