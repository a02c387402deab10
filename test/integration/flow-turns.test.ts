import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

// This file's own fixture site: the test sees what the page posts to it (the flow has begun).
let site: FixtureSite;
let redis: RunningRedis;
let dataDir: string;
const servers: Record<'memory' | 'redis', RunningServer | undefined> = { memory: undefined, redis: undefined };

beforeAll(async () => {
  site = await startFixtureSite();
  redis = await startRedis();
  dataDir = await mkdtemp(join(tmpdir(), 'flow-turns-'));
  servers.memory = await startServer({ FLOW_DATA_DIR: join(dataDir, 'memory') });
  servers.redis = await startServer({ FLOW_DATA_DIR: join(dataDir, 'redis'), REDIS_URL: redis.url });
});
afterAll(async () => {
  await servers.memory?.close();
  await servers.redis?.close();
  await redis?.stop();
  await site?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * Marks the page, tells the test it has begun, lets the page's own clock run three seconds
 * (another caller's call arrives meanwhile), then reads the mark back: a navigate run between
 * two of its steps would have wiped it.
 */
const flow = (started: string) => ({
  steps: [
    { tool: 'navigate', args: { url: `${site.url}/welcome.html` } },
    {
      tool: 'execute_script',
      args: {
        script: `window.__mark = 'flow'; window.__t0 = performance.now(); fetch('/collect?event=${started}', {method: 'POST', body: 'x'}); return 1;`,
      },
    },
    {
      tool: 'assert',
      args: { script: 'return performance.now() - window.__t0 > 3000', timeout: 30, message: 'the clock stopped' },
    },
    { tool: 'execute_script', args: { script: 'return window.__mark ?? null' } },
  ],
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await delay(50);
  }
}

describe('run_flow holds the browser’s turn for its whole run', () => {
  it.each(['memory', 'redis'] as const)(
    'another caller’s call on the workspace waits until the flow is done (%s turns)',
    async (turns) => {
      const server = servers[turns];
      if (!server) {
        throw new Error('no server');
      }
      const workspace = `turns-${turns}`;
      const headers = { 'X-Workspace': workspace };
      const started = `flow-started-${turns}`;
      try {
        const saved = await fetch(`${server.url}/flows/held`, {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(flow(started)),
        });
        expect(saved.status).toBe(200);
        const finished: string[] = [];
        const run = rest(server.url, '/flows/held/run', {}, headers).then((answer) => {
          finished.push('flow');
          return answer;
        });
        await until(() => site.received.some((r) => r.event === started), 'the flow to begin');
        const other = rest(server.url, '/browser/navigate', { url: `${site.url}/login.html` }, headers).then(
          (answer) => {
            finished.push('other');
            return answer;
          },
        );
        const [report, moved] = await Promise.all([run, other]);
        expect(report.status).toBe(200);
        expect(report.body).toMatchObject({ status: 'ok', steps_run: 4, result: { result: 'flow' } });
        expect(moved.status).toBe(200);
        expect(moved.body.url).toBe(`${site.url}/login.html`);
        expect(finished).toEqual(['flow', 'other']);
      } finally {
        await rest(server.url, '/browser/end-browser', {}, headers);
      }
    },
  );
});
