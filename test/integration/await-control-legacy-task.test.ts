import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

// The 2026-07-28 Tasks extension's await_control is tested in await-control.test.ts; this is
// the same task as a 2025-11-25 client runs it, with that era's experimental tasks.
const ADMIN = 'legacy-task-admin-token';
const TOKEN = 'legacy-task-bearer-token';
const siteUrl = inject('siteUrl');
let running: RunningServer;

beforeAll(async () => {
  running = await startServer({
    ADMIN_TOKEN: ADMIN,
    MCP_AUTH_TOKEN: TOKEN,
    FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'legacy-task-')),
  });
}, 120_000);
afterAll(async () => {
  await running.close();
});

async function control(method: 'POST' | 'DELETE', workspace: string) {
  const response = await fetch(`${running.url}/admin/api/workspaces/${workspace}/control`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ who: 'Kelly' }),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('await_control as a 2025-11-25 task', () => {
  it('is a task-augmented call: working while Kelly holds on, then tasks/result is the hand-back', async () => {
    const workspace = 'legacy-task';
    const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': workspace };
    expect((await rest(running.url, '/browser/navigate', { url: `${siteUrl}/welcome.html` }, agent)).status).toBe(200);
    const url = new URL(`${running.url}/mcp`);
    url.searchParams.set('workspace', workspace);
    const client = new Client({ name: 'legacy-task', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    try {
      expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
      expect((await control('POST', workspace)).state).toBe('held');
      const created = await client.request(
        { method: 'tools/call', params: { name: 'await_control', arguments: {}, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      const { taskId } = created.task;
      expect(created.task).toMatchObject({ status: 'working', pollInterval: 1000 });
      const polled = await client.experimental.tasks.getTask(taskId);
      expect(polled).toMatchObject({ taskId, status: 'working', statusMessage: 'waiting for Kelly to hand back' });
      expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([taskId]);
      // tasks/result waits for the end of the task, as that era has it: the hand-back ends it.
      const result = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(await control('DELETE', workspace)).toEqual({ state: 'handed_back' });
      expect((await result).structuredContent).toMatchObject({ handed_back: true, who: 'Kelly' });
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });

      // tasks/cancel ends a task, not Kelly's Control: the next await_control still waits on her.
      expect((await control('POST', workspace)).state).toBe('held');
      const again = await client.request(
        { method: 'tools/call', params: { name: 'await_control', arguments: {}, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      expect(again.task.taskId).not.toBe(taskId);
      expect(await client.experimental.tasks.cancelTask(again.task.taskId)).toMatchObject({ status: 'cancelled' });
      expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
      const refused = await rest(running.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, agent);
      expect(refused.status).toBe(409);
    } finally {
      await control('DELETE', workspace).catch(() => undefined);
      await rest(running.url, '/browser/end-browser', {}, agent).catch(() => undefined);
      await client.close();
    }
  });
});
