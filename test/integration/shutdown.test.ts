import { gridFetch } from '../../src/grid/grid.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';
import { describe, expect, it, inject } from 'vitest';
import { startFixtureSite } from '../fixtures/site.js';
import { gridSessionIds, rest, sharedGridEnv } from '../helpers/server.js';
import { startRedis } from '../helpers/redis.js';
import { spawnReplica } from '../helpers/replica.js';

/**
 * The Grid id of the browser that a server opened on the site, among the sessions new since
 * `before`: the server's handle is no Grid id, and other files open browsers on the shared Grid
 * meanwhile, so each new session is asked for its page.
 */
async function gridIdOnSite(before: Set<string>, siteUrl: string): Promise<string | undefined> {
  for (const id of await gridSessionIds()) {
    if (before.has(id)) {
      continue;
    }
    const page = await gridFetch(`${inject('gridUrl')}/session/${id}/url`, { method: 'GET' })
      .then((response) => response.json() as Promise<{ value?: unknown }>)
      .catch(() => undefined);
    if (typeof page?.value === 'string' && page.value.startsWith(siteUrl)) {
      return id;
    }
  }
  return undefined;
}

describe('selenium-flow serve on SIGTERM', () => {
  it('exits within seconds even while a call is stuck on the browser', async () => {
    // node itself (not npx), so the signal reaches the server and the exit is its own.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--log-level', 'silent'],
      {
        env: {
          ...(process.env as Record<string, string>),
          ...sharedGridEnv(),
          SE_OFFLINE: 'true',
          CALL_TIMEOUT: '30',
          SHUTDOWN_GRACE: '3',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const base = await new Promise<string>((resolve, reject) => {
      const find = () => {
        const match = /MCP:\s+(http:\/\/[^/\s]+)\/mcp/.exec(output.join(''));
        if (match?.[1]) {
          resolve(match[1]);
        }
      };
      child.stdout.on('data', find);
      void exited.then(() => reject(new Error(`the server exited before serving:\n${output.join('')}`)));
    });
    const site = await startFixtureSite();
    const before = await gridSessionIds();
    const opened = await rest(base, '/browser/open-session', {});
    const sessionId = opened.body.session_id as string;
    let gridId: string | undefined;
    try {
      await rest(base, '/browser/navigate', { url: `${site.url}/table.html`, session_id: sessionId });
      gridId = await gridIdOnSite(before, site.url);
      expect(gridId, 'the browser the server opened, found on the Grid').toBeDefined();
      // A script that never settles holds the call (and chromedriver) until WebDriver's script timeout, 24 s.
      // It first tells the page's site that it runs: the signal goes once the call is in the browser.
      const stuck = rest(base, '/browser/execute-script', {
        script: "fetch('/collect?event=stuck', { method: 'POST', body: '' }); return new Promise(() => {})",
        session_id: sessionId,
      }).catch(() => 'cut off');
      await expect.poll(() => site.received.some((r) => r.event === 'stuck'), { timeout: 20_000 }).toBe(true);
      const signalled = Date.now();
      child.kill('SIGTERM');
      await exited;
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(await stuck).toBe('cut off');
    } finally {
      child.kill('SIGKILL');
      // The browser outlives its server by design (records may be shared); end it here, before its site:
      // the site's close waits for the browser's kept-alive connection.
      // A node busy with the stuck script may refuse the first DELETE: ask until the Grid lets it go.
      for (let tries = 0; gridId && tries < 3 && (await gridSessionIds()).has(gridId); tries += 1) {
        await gridFetch(`${inject('gridUrl')}/session/${gridId}`, { method: 'DELETE' }).catch(() => undefined);
      }
      await site.close();
    }
    // The Grid's /status frees the slot a moment after the DELETE answers.
    await expect.poll(async () => (await gridSessionIds()).has(gridId ?? ''), { timeout: 10_000 }).toBe(false);
  });
});

describe('a clean drain', () => {
  it('answers new calls 503, finishes the running one, answers what waits, and leaves the browsers for the next replica', async () => {
    const ADMIN = 'drain-admin-token';
    const TOKEN = 'drain-bearer-token';
    const as = (workspace: string) => ({ authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace });
    const redis = await startRedis();
    const site = await startFixtureSite();
    const env = { ...sharedGridEnv(), REDIS_URL: redis.url, ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN };
    const [a, b] = await Promise.all([spawnReplica({ ...env, SHUTDOWN_GRACE: '20' }), spawnReplica(env)]);
    const control = (method: 'POST' | 'DELETE') =>
      fetch(`${b.url}/admin/api/workspaces/drain-held/control`, {
        method,
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ who: 'Kelly' }),
      });
    try {
      for (const workspace of ['drain-held', 'drain-busy']) {
        const opened = await rest(a.url, '/browser/navigate', { url: `${site.url}/table.html` }, as(workspace));
        expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      }
      expect((await control('POST')).status).toBe(200);
      // What waits on A: an agent's await_control, and a notification stream.
      const waiting = rest(a.url, '/browser/await-control', {}, as('drain-held'));
      const stream = await fetch(`${a.url}/mcp?workspace=drain-busy`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' },
      });
      expect(stream.status).toBe(200);
      const streamEnded = stream.text().then(() => Date.now());
      const listener = new Client(
        { name: 'drain-listener', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await listener.connect(
        new StreamableHTTPClientTransport(new URL(`${a.url}/mcp?workspace=drain-busy`), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const subscription = await listener.listen({ toolsListChanged: true });
      // A call running on A when it is told to stop: a script that answers 3 s after it began.
      const running = rest(
        a.url,
        '/browser/execute-script',
        {
          script:
            "fetch('/collect?event=running', { method: 'POST', body: '' }); return new Promise((done) => setTimeout(() => done('finished'), 3000))",
        },
        as('drain-busy'),
      );
      await expect.poll(() => site.received.some((r) => r.event === 'running'), { timeout: 20_000 }).toBe(true);

      const exited = new Promise<number | null>((resolve) => a.child.once('exit', (code) => resolve(code)));
      const signalled = Date.now();
      a.child.kill('SIGTERM');
      // The agent hears at once why its wait ended, and waits on through B.
      const answered = await waiting;
      expect(Date.now() - signalled).toBeLessThan(2_000);
      expect(answered.status).toBe(200);
      expect(answered.body).toMatchObject({
        handed_back: false,
        message:
          'this replica of selenium-flow is stopping, and the person still has control; call await_control again, and another replica (or this one, restarted) waits on.',
      });
      const onB = rest(b.url, '/browser/await-control', {}, as('drain-held'));
      expect((await streamEnded) - signalled).toBeLessThan(2_000);
      // A 2026-07-28 listen stream ends with its final result: the spec's graceful close.
      expect(await subscription.closed).toBe('graceful');
      await listener.close();
      // A new call on A is refused with the sentence while the running one finishes.
      const refused = await fetch(`${a.url}/browser/navigate`, {
        method: 'POST',
        headers: { ...as('drain-busy'), 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}/table.html` }),
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('stopping');
      expect(await running).toMatchObject({ status: 200, body: { result: 'finished' } });
      expect(await exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000);

      // B serves both workspaces on the browsers A left on the Grid, and its wait returns at the hand-back.
      const busy = await rest(b.url, '/workspace', undefined, as('drain-busy'));
      expect(busy.body).toMatchObject({ browser: { alive: true }, url: `${site.url}/table.html` });
      expect((await control('DELETE')).status).toBe(200);
      expect(await onB).toMatchObject({ status: 200, body: { handed_back: true } });
    } finally {
      for (const workspace of ['drain-held', 'drain-busy']) {
        await rest(b.url, '/browser/end-browser', {}, as(workspace)).catch(() => undefined);
      }
      await Promise.all([a.kill('SIGKILL'), b.kill('SIGTERM')]);
      await site.close();
      await redis.stop();
    }
  }, 120_000);
});
