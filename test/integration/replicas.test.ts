import { Redis } from 'ioredis';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectMcp, rest, type ProtocolEra } from '../helpers/server.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { roundRobinProxy, spawnReplica, type Replica } from '../helpers/replica.js';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../src/mcp/apps.js';

// Two `selenium-flow serve` processes (replicas A and B) sharing one real Redis, on the shared Grid.
// At most one browser is open at a time here: the Grid's slots are shared with another test file.

let redis: RunningRedis;
let peek: Redis;
let a: Replica;
let b: Replica;
const site = inject('siteUrl');

beforeAll(async () => {
  redis = await startRedis();
  peek = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
  peek.on('error', () => undefined);
  await peek.connect();
  const env = { GRID_URL: inject('gridUrl'), REDIS_URL: redis.url };
  [a, b] = await Promise.all([spawnReplica(env), spawnReplica(env)]);
});

afterAll(async () => {
  await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
  peek?.disconnect();
  await redis?.stop();
});

const ws = (name: string) => ({ 'X-Workspace': name });

async function until(fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) {
      throw new Error('condition not reached in time');
    }
    await delay(20);
  }
}

describe('two replicas sharing Redis', () => {
  it('drives through replica B the browser a workspace opened through replica A', async () => {
    const opened = await rest(a.url, '/browser/open-session', {}, ws('shared'));
    expect(opened.status).toBe(200);
    const went = await rest(b.url, '/browser/navigate', { url: `${site}/table.html` }, ws('shared'));
    expect(went.body).toMatchObject({ title: 'Data table' });
    expect(await rest(b.url, '/browser/extract', { selector: { css: 'h1' } }, ws('shared'))).toEqual({
      status: 200,
      body: { value: 'Data table' },
    });
    const seenFromA = await rest(a.url, '/workspace', undefined, ws('shared'));
    expect(seenFromA.body).toMatchObject({ url: `${site}/table.html`, browser: { alive: true } });
    expect((await rest(b.url, '/browser/end-browser', {}, ws('shared'))).body).toEqual({ ended: true });
    expect((await rest(a.url, '/workspace', undefined, ws('shared'))).body).toMatchObject({ browser: null });
  });

  it('honours a stateless handle opened through replica A on replica B, until it is ended', async () => {
    const opened = await rest(a.url, '/browser/open-session', {});
    expect(opened.status).toBe(200);
    const handle = opened.body.session_id as string;
    const went = await rest(b.url, '/browser/navigate', { url: `${site}/table.html`, session_id: handle });
    expect(went.body).toMatchObject({ title: 'Data table' });
    expect((await rest(a.url, '/browser/extract', { selector: { css: 'h1' }, session_id: handle })).body).toEqual({
      value: 'Data table',
    });
    // Redis holds the handle's digest, never the handle itself.
    expect((await peek.keys('*')).join(' ')).not.toContain(handle);
    expect((await rest(b.url, '/browser/end-browser', { session_id: handle })).body).toEqual({ ended: true });
    const gone = await rest(a.url, '/browser/extract', { selector: { css: 'h1' }, session_id: handle });
    expect(gone.status).toBe(404);
  });

  it('makes concurrent calls through both replicas take turns on one browser', async () => {
    await rest(a.url, '/browser/navigate', { url: `${site}/login.html` }, ws('turns'));
    // Through A, a call waits for a flag that only B's call sets. Taking turns, B's call runs after
    // A's has given up; interleaved, A's would see the flag.
    const first = rest(
      a.url,
      '/browser/assert',
      { script: 'return window.__flag === true', timeout: 1, message: 'flag not set' },
      ws('turns'),
    );
    await until(async () => (await peek.exists('selenium-flow:turn:workspace:named:turns:holder')) === 1);
    const second = rest(b.url, '/browser/execute-script', { script: 'window.__flag = true; return 1' }, ws('turns'));
    const [waited, set] = await Promise.all([first, second]);
    expect(waited.status).toBe(504);
    expect(JSON.stringify(waited.body)).toContain('flag not set');
    expect(set.body).toMatchObject({ result: 1 });
    // And many at once, alternating replicas: every call sees the page as the one before left it.
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rest(
          i % 2 === 0 ? a.url : b.url,
          '/browser/execute-script',
          {
            script: 'const n = window.__n || 0; window.__n = n + 1; return n;',
          },
          ws('turns'),
        ),
      ),
    );
    expect(results.map((r) => r.body.result).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await rest(b.url, '/browser/end-browser', {}, ws('turns'));
  });

  it.each(['2025-11-25', '2026-07-28'] as ProtocolEra[])(
    'keeps an MCP client (%s) working when its consecutive requests land on different replicas',
    async (era) => {
      const proxy = await roundRobinProxy([a.url, b.url]);
      const workspace = `mcp-${era}`;
      const client = await connectMcp(proxy.url, era, { workspace });
      try {
        const went = await client.call('navigate', { url: `${site}/table.html` });
        expect(went.structured).toMatchObject({ title: 'Data table' });
        const rows = await client.call('extract', { selector: { css: '#data tbody tr td:nth-child(2)' }, all: true });
        expect((rows.structured?.values as string[]).length).toBe(50);
        const current = await client.call('current_workspace');
        expect(current.structured).toMatchObject({ workspace, url: `${site}/table.html`, browser: { alive: true } });
        expect((await client.call('end_browser')).structured).toEqual({ ended: true });
        expect(proxy.counts[0]).toBeGreaterThan(1);
        expect(proxy.counts[1]).toBeGreaterThan(1);
      } finally {
        await client.close();
        await proxy.close();
      }
    },
  );

  it('serves a 2025-11-25 session on either replica: what its client announced, its workspace, its end', async () => {
    const proxy = await roundRobinProxy([a.url, b.url]);
    const client = new LegacyClient(
      { name: 'replicas-session', version: '1.0.0' },
      { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } },
    );
    const transport = new LegacyTransport(new URL(`${proxy.url}/mcp`));
    await client.connect(transport);
    try {
      // initialize on one replica; each later request on the other, which knows the session from Redis.
      for (let i = 0; i < 2; i++) {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('watch');
      }
      await client.callTool({ name: 'navigate', arguments: { url: `${site}/table.html` } });
      const read = await client.callTool({ name: 'extract', arguments: { selector: { css: 'h1' } } });
      expect(read.structuredContent).toEqual({ value: 'Data table' });
      expect(proxy.counts[0]).toBeGreaterThan(1);
      expect(proxy.counts[1]).toBeGreaterThan(1);
      // Redis holds the id's digest, never the id.
      expect((await peek.keys('*')).join(' ')).not.toContain(transport.sessionId);
      const id = transport.sessionId ?? '';
      await transport.terminateSession();
      for (const replica of [a, b]) {
        const gone = await fetch(`${replica.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': id,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
        });
        expect(gone.status).toBe(404);
      }
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('carries on through B when A is killed in the middle of a call on the same browser', async () => {
    await rest(b.url, '/browser/navigate', { url: `${site}/login.html` }, ws('crash'));
    const holder = 'selenium-flow:turn:workspace:named:crash:holder';
    // A long call through A (100 s at most) holds the browser's turn...
    const doomed = rest(
      a.url,
      '/browser/assert',
      { script: 'return false', timeout: 100, message: 'never' },
      ws('crash'),
    ).catch((err: unknown) => err);
    await until(async () => (await peek.exists(holder)) === 1);
    // ...a call through B waits in line for it...
    const waiting = rest(b.url, '/browser/execute-script', { script: 'return document.title' }, ws('crash'));
    await until(async () => (await peek.llen('selenium-flow:turn:workspace:named:crash:queue')) === 1);
    // ...and A dies without a word: its lease (5 s) ends the turn, and B goes on.
    const killed = Date.now();
    await a.kill('SIGKILL');
    const answer = await waiting;
    expect(answer).toMatchObject({ status: 200, body: { result: 'Login' } });
    // The 5-s lease (plus slack for a busy machine), far sooner than A's call would have ended.
    expect(Date.now() - killed).toBeLessThan(30_000);
    expect(await doomed).toBeInstanceOf(Error);
    expect((await rest(b.url, '/browser/extract', { selector: { css: 'h1' } }, ws('crash'))).status).toBe(200);
    await rest(b.url, '/browser/end-browser', {}, ws('crash'));
  }, 120_000);

  it('answers 503 with the reason while Redis is away, and serves again once it is back', async () => {
    await redis.stop();
    const read = await rest(b.url, '/workspace', undefined, ws('outage'));
    expect(read.status).toBe(503);
    expect(read.body.error).toMatchObject({ code: 'store_unavailable' });
    expect((read.body.error as { message: string }).message).toContain(`Redis at 127.0.0.1:${redis.port}`);
    const act = await rest(b.url, '/browser/navigate', { url: `${site}/login.html` }, ws('outage'));
    expect(act.status).toBe(503);
    const ready = await rest(b.url, '/ready');
    expect(ready).toMatchObject({ status: 503, body: { store: false } });

    await redis.start();
    await until(async () => (await rest(b.url, '/workspace', undefined, ws('outage'))).status === 200);
    const again = await rest(b.url, '/browser/navigate', { url: `${site}/login.html` }, ws('outage'));
    expect(again.body).toMatchObject({ title: 'Login' });
    expect((await rest(b.url, '/ready')).body).toMatchObject({ store: true });
    await rest(b.url, '/browser/end-browser', {}, ws('outage'));
  });
});
