import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connectMcp, rest, startServer, type RunningServer } from '../helpers/server.js';

let running: RunningServer;
const site = () => inject('siteUrl');

beforeAll(async () => {
  running = await startServer({ FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-tools-')) });
});
afterAll(async () => {
  await running.close();
});

const LOGIN = () => ({
  description: 'Log in to the fixture site and read the greeting',
  parameters: {
    type: 'object',
    properties: { email: { type: 'string', description: 'the account' } },
    required: ['email'],
  },
  steps: [
    { tool: 'navigate', args: { url: `${site()}/login.html` } },
    { tool: 'write', args: { selector: { css: '#email' }, text: '${email}' } },
    { tool: 'interact', args: { action: 'click', selector: { css: '#submit' } } },
    { id: 'greeting', tool: 'extract', args: { selector: { css: '#greeting' } }, return: true },
  ],
});

async function save(base: string, workspace: string, name: string, document: object) {
  const response = await fetch(`${base}/flows/${name}`, {
    method: 'PUT',
    headers: { 'X-Workspace': workspace, 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function remove(base: string, workspace: string, name: string) {
  const response = await fetch(`${base}/flows/${name}`, { method: 'DELETE', headers: { 'X-Workspace': workspace } });
  return response.status;
}

/** A 2026-07-28 client with a listen stream open for tools/list_changed, counting what arrives. */
async function listening(base: string, workspace: string) {
  const client = new Client(
    { name: 'flow-tools-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const url = new URL(`${base}/mcp`);
  url.searchParams.set('workspace', workspace);
  await client.connect(new StreamableHTTPClientTransport(url));
  let heard = 0;
  let waiting: (() => void)[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    heard += 1;
    for (const wake of waiting) {
      wake();
    }
    waiting = [];
  });
  const subscription = await client.listen({ toolsListChanged: true });
  return {
    client,
    honored: subscription.honoredFilter,
    heard: () => heard,
    /** resolves once `count` notifications have arrived in all */
    until: async (count: number) => {
      while (heard < count) {
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    close: async () => {
      await subscription.close();
      await client.close();
    },
  };
}

describe('each saved flow is its own MCP tool', () => {
  it('appears with list_changed on save, logs in when called, and disappears on delete', async () => {
    const mine = await listening(running.url, 'ft-a');
    const neighbour = await listening(running.url, 'ft-b');
    try {
      expect(mine.honored).toMatchObject({ toolsListChanged: true });
      expect((await mine.client.listTools()).tools.map((t) => t.name)).not.toContain('flow_login');

      expect((await save(running.url, 'ft-a', 'login', LOGIN())).status).toBe(200);
      await mine.until(1);
      const listed = await mine.client.listTools();
      const tool = listed.tools.find((t) => t.name === 'flow_login');
      expect(tool?.description).toContain('Log in to the fixture site and read the greeting');
      expect(tool).toMatchObject({
        inputSchema: LOGIN().parameters,
        annotations: { destructiveHint: true },
      });
      expect(listed._meta?.['selenium-flow/flow-tools']).toMatchObject({ listed: 1, total: 1 });

      const called = await mine.client.callTool({ name: 'flow_login', arguments: { email: 'ada@example.com' } });
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toMatchObject({
        flow: 'login',
        status: 'ok',
        title: 'Welcome',
        returned: { greeting: { value: 'Welcome, ada@example.com' } },
      });
      // Exactly run_flow: a missing param is run_flow's refusal, as a tool error.
      const refused = await mine.client.callTool({ name: 'flow_login', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/Invalid params.*email/);

      expect(await remove(running.url, 'ft-a', 'login')).toBe(200);
      await mine.until(2);
      expect((await mine.client.listTools()).tools.map((t) => t.name)).not.toContain('flow_login');

      // The neighbour heard nothing of ft-a's library: its first notice is its own save.
      expect((await save(running.url, 'ft-b', 'mine', LOGIN())).status).toBe(200);
      await neighbour.until(1);
      expect(neighbour.heard()).toBe(1);
      expect((await neighbour.client.listTools()).tools.map((t) => t.name)).toContain('flow_mine');
      expect((await mine.client.listTools()).tools.map((t) => t.name)).not.toContain('flow_mine');
      await rest(running.url, '/browser/end-browser', {}, { 'X-Workspace': 'ft-a' });
    } finally {
      await mine.close();
      await neighbour.close();
    }
  });

  it("follows an operator's move to global: list_changed, and the tool is still listed", async () => {
    const operated = await startServer({
      FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-tools-admin-')),
      ADMIN_TOKEN: 'operator-secret-token',
    });
    const mine = await listening(operated.url, 'ft-op');
    try {
      expect((await save(operated.url, 'ft-op', 'report', LOGIN())).status).toBe(200);
      await mine.until(1);
      const moved = await fetch(`${operated.url}/admin/api/workspaces/ft-op/flows/report/move`, {
        method: 'POST',
        headers: { authorization: 'Bearer operator-secret-token', 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'global' }),
      });
      expect(moved.status).toBe(200);
      await mine.until(2);
      const listed = await mine.client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('flow_report');
    } finally {
      await mine.close();
      await operated.close();
    }
  });

  it('a 2025-11-25 client sees the same flow tools on its next tools/list', async () => {
    expect((await save(running.url, 'ft-legacy', 'greet', LOGIN())).status).toBe(200);
    const legacy = await connectMcp(running.url, '2025-11-25', { workspace: 'ft-legacy' });
    try {
      const tools = await legacy.listTools();
      expect(tools.find((t) => t.name === 'flow_greet')?.inputSchema).toEqual(LOGIN().parameters);
    } finally {
      await legacy.close();
    }
  });

  it('refuses a flow named like a tool and parameters that are no tool input, naming the fix', async () => {
    const named = await save(running.url, 'ft-bad', 'navigate', LOGIN());
    expect(named.status).toBe(400);
    expect((named.body.error as { message: string }).message).toMatch(
      /"navigate" is the name of a tool.*choose another name/,
    );
    const bad = async (parameters: object) => {
      const answer = await save(running.url, 'ft-bad', 'odd', { ...LOGIN(), parameters });
      expect(answer.status).toBe(400);
      return (answer.body.error as { message: string }).message;
    };
    expect(await bad({ type: 'object', anyOf: [{ required: ['a'] }] })).toMatch(
      /anyOf at the top, which tool clients do not accept.*under properties instead/,
    );
    expect(await bad({ type: 'object', properties: { 'first-name': { type: 'string' } } })).toMatch(
      /first-name: a parameter is used as \$\{first-name\}.*rename it/,
    );
    expect(
      await bad({ type: 'object', properties: { email: { $ref: '#/$defs/email' } }, $defs: { email: {} } }),
    ).toMatch(/\$ref, which tool clients do not resolve; write the referenced schema out in place/);
    expect(await bad({ type: 'object', properties: {}, required: ['email'] })).toMatch(
      /required names "email", which is not under properties/,
    );
  });
});

describe('the flow tools listed', () => {
  it('are at most FLOW_TOOLS_MAX, most recently run first; the rest still run through run_flow', async () => {
    const capped = await startServer({
      FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-cap-')),
      FLOW_TOOLS_MAX: '2',
    });
    try {
      const read = { steps: [{ tool: 'outline', args: {} }] };
      await rest(capped.url, '/browser/navigate', { url: `${site()}/login.html` }, { 'X-Workspace': 'ft-cap' });
      for (const name of ['alpha', 'bravo', 'charlie']) {
        expect((await save(capped.url, 'ft-cap', name, read)).status).toBe(200);
      }
      const mcp = await connectMcp(capped.url, '2026-07-28', { workspace: 'ft-cap' });
      try {
        const names = async () => (await mcp.listTools()).map((t) => t.name).filter((n) => n.startsWith('flow_'));
        expect(await names()).toEqual(['flow_alpha', 'flow_bravo']);
        const run = await mcp.call('run_flow', { name: 'charlie' });
        expect(run.structured).toMatchObject({ flow: 'charlie', status: 'ok' });
        expect(await names()).toEqual(['flow_charlie', 'flow_alpha']);
        // A flow of reads only is a read-only tool.
        const tools = await mcp.listTools();
        expect(tools.find((t) => t.name === 'flow_charlie')?.annotations).toEqual({ readOnlyHint: true });
      } finally {
        await mcp.close();
        await rest(capped.url, '/browser/end-browser', {}, { 'X-Workspace': 'ft-cap' });
      }
    } finally {
      await capped.close();
    }
  });

  it('are none with FLOW_TOOLS=off, which also stops advertising list_changed', async () => {
    const off = await startServer({ FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'flow-off-')), FLOW_TOOLS: 'off' });
    try {
      expect((await save(off.url, 'ft-off', 'login', LOGIN())).status).toBe(200);
      const mcp = await connectMcp(off.url, '2026-07-28', { workspace: 'ft-off' });
      try {
        expect((await mcp.listTools()).map((t) => t.name)).not.toContain('flow_login');
        await expect(mcp.call('flow_login', { email: 'a@b.c' })).rejects.toThrow(/Unknown tool "flow_login"/);
      } finally {
        await mcp.close();
      }
    } finally {
      await off.close();
    }
  });
});
