import { gridFetch } from '../../src/grid/grid.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

const site = () => inject('siteUrl');
const errorOf = (body: Record<string, unknown>) => body.error as { code: string; message: string };

/** The Grid id behind a saved workspace, read from the server's own record. */
async function gridIdOf(running: RunningServer, workspace: string): Promise<string> {
  const record = await running.server.deps.workspaces.record(`named:${workspace}`);
  if (!record?.gridId) {
    throw new Error(`workspace ${workspace} has no browser`);
  }
  return record.gridId;
}

let redis: RunningRedis;
let dataDir: string;
beforeAll(async () => {
  redis = await startRedis();
  dataDir = await mkdtemp(join(tmpdir(), 'sf-deadlines-'));
});
afterAll(async () => {
  await redis?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe.each([
  ['in-memory turns', () => ({})],
  ['Redis turns', () => ({ REDIS_URL: redis.url })],
])('a call with a deadline (%s)', (_name, extraEnv) => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer({ CALL_TIMEOUT: '6', FLOW_DATA_DIR: dataDir, ...extraEnv() });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('opens browsers with WebDriver script and page-load timeouts below the call deadline', async () => {
    const ws = { 'X-Workspace': 'timeouts' };
    expect((await rest(running.url, '/browser/open-session', {}, ws)).status).toBe(200);
    const gridId = await gridIdOf(running, 'timeouts');
    const timeouts = (await (
      await gridFetch(`${inject('gridUrl')}/session/${gridId}/timeouts`, { method: 'GET' })
    ).json()) as { value: Record<string, number> };
    expect(timeouts.value).toMatchObject({ script: 4800, pageLoad: 4800 });
    // A script that waits for ever on a live page answers WebDriver's own timeout, a 504.
    const waiting = await rest(running.url, '/browser/execute-script', { script: 'return new Promise(() => {})' }, ws);
    expect(waiting.status).toBe(504);
    expect(errorOf(waiting.body).code).toBe('timeout');
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('stops execute_script "while(true){}" at the deadline, replaces the hung tab, and gives the turn to the next call', async () => {
    const ws = { 'X-Workspace': 'hung' };
    const went = await rest(running.url, '/browser/navigate', { url: `${site()}/table.html` }, ws);
    expect(went.status).toBe(200);
    const started = Date.now();
    const hung = rest(running.url, '/browser/execute-script', { script: 'while (true) {}' }, ws);
    // Queued behind the hung call: it gets its turn once the hung one is stopped.
    const next = rest(running.url, '/browser/navigate', { url: `${site()}/login.html` }, ws);
    const stopped = await hung;
    expect(stopped.status).toBe(504);
    expect(errorOf(stopped.body)).toMatchObject({ code: 'timeout' });
    expect(errorOf(stopped.body).message).toContain('CALL_TIMEOUT');
    expect(errorOf(stopped.body).message).toContain('tab was closed');
    expect(Date.now() - started).toBeLessThan(20_000);
    const after = await next;
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ title: 'Login' });
    const read = await rest(running.url, '/browser/execute-script', { script: 'return document.title' }, ws);
    expect(read.body).toMatchObject({ result: 'Login' });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });

  it('bounds each step of a flow run by its own deadline, and recovers the page for the next call', async () => {
    const ws = { 'X-Workspace': 'hung-flow' };
    const put = await fetch(`${running.url}/flows/spin`, {
      method: 'PUT',
      headers: { ...ws, 'content-type': 'application/json' },
      body: JSON.stringify({
        steps: [
          { tool: 'navigate', args: { url: `${site()}/table.html` } },
          { tool: 'execute_script', args: { script: 'while (true) {}' } },
        ],
      }),
    });
    expect(put.status).toBeLessThan(300);
    const run = await rest(running.url, '/flows/spin/run', {}, ws);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'failed', failed: { n: 2, error: { code: 'timeout' } } });
    const after = await rest(running.url, '/browser/navigate', { url: `${site()}/login.html` }, ws);
    expect(after.body).toMatchObject({ title: 'Login' });
    await rest(running.url, '/browser/end-browser', {}, ws);
  });
});
