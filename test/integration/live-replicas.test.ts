import { Redis } from 'ioredis';
import { Capabilities, Session, WebDriver } from 'selenium-webdriver';
import http from 'selenium-webdriver/http/index.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rest } from '../helpers/server.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';

const ADMIN = 'replicas-admin-token';
const TOKEN = 'replicas-bearer-token';
const WORKSPACE = 'live-replicas';
const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };
const siteUrl = inject('siteUrl');
const gridUrl = inject('gridUrl');

let redis: RunningRedis;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  redis = await startRedis();
  const env = { GRID_URL: gridUrl, REDIS_URL: redis.url, ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN };
  [a, b] = await Promise.all([spawnReplica(env), spawnReplica(env)]);
  expect((await rest(b.url, '/browser/navigate', { url: `${siteUrl}/welcome.html` }, agent)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  if (a) {
    await control(a, 'DELETE').catch(() => undefined);
    await rest(a.url, '/browser/end-browser', {}, agent).catch(() => undefined);
  }
  await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
  await redis?.stop();
});

async function control(replica: Replica, method: 'POST' | 'DELETE') {
  const response = await fetch(`${replica.url}/admin/api/workspaces/${WORKSPACE}/control`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ who: 'Kelly' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What the replicas share in Redis: the workspace's browser, and the pages followed under Control. */
async function shared<T>(read: (redis: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(redis.url);
  try {
    return await read(client);
  } finally {
    client.disconnect();
  }
}

describe('Control across two replicas on one Redis', { timeout: 120_000 }, () => {
  it('taken through A refuses the agent on B, reads still answer on B, and B’s await_control returns at A’s hand-back', async () => {
    const taken = await control(a, 'POST');
    expect(taken.body.state).toBe('held');
    const sentence = `Kelly has control of this browser since ${String(taken.body.since).slice(11, 16)} UTC. Call await_control (POST /browser/await-control), which returns when they hand back.`;

    const refused = await rest(b.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, agent);
    expect(refused.status).toBe(409);
    expect((refused.body.error as { message: string }).message).toBe(sentence);
    const read = await rest(b.url, '/browser/extract', { selector: { css: 'h1' } }, agent);
    expect(read.status).toBe(200);
    expect(read.body.control).toMatchObject({ state: 'held', who: 'Kelly' });

    // The person moves the browser while A follows it; B reads the list at the hand-back.
    const visited = () => shared((r) => r.get(`selenium-flow:live:visited:${WORKSPACE}`));
    await expect.poll(visited, { timeout: 20_000 }).toContain('"pages"');
    const record = await shared((r) => r.get(`selenium-flow:workspace:named:${WORKSPACE}`));
    const gridId = (JSON.parse(record ?? '{}') as { gridId?: string }).gridId ?? '';
    const person = new WebDriver(
      new Session(gridId, new Capabilities({})),
      new http.Executor(new http.HttpClient(gridUrl)),
    );
    let settled = false;
    const waiting = rest(b.url, '/browser/await-control', {}, agent).finally(() => {
      settled = true;
    });
    await person.get(`${siteUrl}/table.html`);
    await expect.poll(visited).toContain('Data table');
    expect(settled).toBe(false);

    expect((await control(a, 'DELETE')).body).toEqual({ state: 'handed_back' });
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      handed_back: true,
      who: 'Kelly',
      visited: [{ url: `${siteUrl}/table.html`, title: 'Data table' }],
      url: `${siteUrl}/table.html`,
    });
    expect((await rest(b.url, '/browser/navigate', { url: `${siteUrl}/login.html` }, agent)).status).toBe(200);
  });
});

/** One 2026-07-28 MCP request to a replica, declaring the Tasks extension; the JSON-RPC answer. */
async function framed(
  replica: Replica,
  method: string,
  params: Record<string, unknown>,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const url = new URL(`${replica.url}/mcp`);
  url.searchParams.set('workspace', WORKSPACE);
  const name = method === 'tools/call' ? params.name : params.taskId;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'replica-tasks', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        },
      },
    }),
  });
  const text = await response.text();
  const lines = text.split('\n').filter((line) => line.startsWith('data:'));
  return JSON.parse(lines.length > 0 ? (lines.at(-1) ?? '').slice(5) : text) as {
    result?: Record<string, unknown>;
  };
}

describe('await_control as an MCP task across two replicas', { timeout: 120_000 }, () => {
  it('started through A, handed back through B, returns through B', async () => {
    expect((await control(a, 'POST')).body.state).toBe('held');
    const started = await framed(a, 'tools/call', { name: 'await_control', arguments: {} });
    expect(started.result?.resultType, JSON.stringify(started)).toBe('task');
    const taskId = started.result?.taskId;
    expect(typeof taskId).toBe('string');

    // B knows the task A started, and it is still working while Kelly holds the browser.
    const working = await framed(b, 'tasks/get', { taskId });
    expect(working.result?.status, JSON.stringify(working)).toBe('working');

    expect((await control(b, 'DELETE')).body).toEqual({ state: 'handed_back' });
    let answer: Awaited<ReturnType<typeof framed>> | undefined;
    await expect
      .poll(
        async () => {
          answer = await framed(b, 'tasks/get', { taskId });
          return answer.result?.status;
        },
        { timeout: 20_000 },
      )
      .toBe('completed');
    const result = answer?.result?.result as { structuredContent?: Record<string, unknown> } | undefined;
    expect(result?.structuredContent).toMatchObject({ handed_back: true, who: 'Kelly' });
    // A answers the same settled task.
    expect((await framed(a, 'tasks/get', { taskId })).result).toMatchObject({ status: 'completed', result });
  });
});
