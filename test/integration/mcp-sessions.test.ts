import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../src/mcp/apps.js';
import { sessionCaller } from '../../src/workspace/caller.js';
import { gridHas, startServer, type RunningServer } from '../helpers/server.js';

// The 2025-11-25 era over HTTP: initialize opens a session (Mcp-Session-Id) that remembers what the
// client announced and is a workspace of its own. ALICE's token is a host's for a person (control: true).
const ALICE = 'sessions-alice-token-0123456789';
const BOB = 'sessions-bob-token-0123456789ab';
const site = inject('siteUrl');
const APPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };

let running: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-sessions-'));
  await writeFile(
    join(dir, 'tokens.yaml'),
    `tokens:\n  - name: alice\n    token: ${ALICE}\n    workspaces: ["*"]\n    control: true\n  - name: bob\n    token: ${BOB}\n    workspaces: ["*"]\n`,
  );
  running = await startServer({
    TOKENS_FILE: join(dir, 'tokens.yaml'),
    CONTROL_BY: 'apps',
    ALLOWED_ORIGINS: 'https://host.example',
  });
});

afterAll(async () => {
  await running.close();
  await rm(dir, { recursive: true, force: true });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An SDK 1.x client (the 2025-11-25 era the hosts speak) on plain /mcp, announcing `capabilities`. */
async function legacyClient(token: string, capabilities: Record<string, unknown> = {}) {
  const client = new LegacyClient({ name: 'sessions-test', version: '1.0.0' }, { capabilities });
  const transport = new LegacyTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: bearer(token) } });
  await client.connect(transport);
  return { client, transport };
}

const namesOf = (tools: { name: string }[]) => tools.map((t) => t.name);
const uiOf = (tools: { name: string; _meta?: Record<string, unknown> }[], name: string) =>
  tools.find((t) => t.name === name)?._meta?.ui;

/** A raw JSON-RPC POST to /mcp. */
async function post(token: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(`${running.url}/mcp`, {
    method: 'POST',
    headers: {
      ...bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: APPS, clientInfo: { name: 'raw', version: '1' } },
};
const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

describe('a 2025-11-25 client over HTTP', () => {
  it('that announced the UI extension at initialize sees both apps, with Control where its token may take it', async () => {
    const alice = await legacyClient(ALICE, APPS);
    const bob = await legacyClient(BOB, APPS);
    try {
      expect(alice.transport.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const tools = (await alice.client.listTools()).tools;
      expect(namesOf(tools)).toEqual(
        expect.arrayContaining(['workspace_files', 'watch', 'live_ticket', 'take_control', 'hand_back']),
      );
      expect(uiOf(tools, 'workspace_files')).toEqual({ resourceUri: 'ui://selenium-flow/files' });
      expect(uiOf(tools, 'watch')).toEqual({ resourceUri: 'ui://selenium-flow/live' });
      const resources = (await alice.client.listResources()).resources.map((r) => r.uri);
      expect(resources).toEqual(expect.arrayContaining(['ui://selenium-flow/files', 'ui://selenium-flow/live']));
      // The same announcement on a token no person holds: it watches, and takes no Control.
      const bobs = namesOf((await bob.client.listTools()).tools);
      expect(bobs).toEqual(expect.arrayContaining(['watch', 'live_ticket']));
      expect(bobs).not.toContain('take_control');
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });

  it('that announced nothing lists workspace_files with its app, and nothing that needs one', async () => {
    const plain = await legacyClient(BOB);
    try {
      const tools = (await plain.client.listTools()).tools;
      // A host may render apps without announcing them (VS Code, the ext-apps basic-host).
      expect(uiOf(tools, 'workspace_files')).toEqual({ resourceUri: 'ui://selenium-flow/files' });
      expect(namesOf(tools)).not.toContain('watch');
      expect(namesOf(tools)).not.toContain('live_ticket');
      const resources = (await plain.client.listResources()).resources.map((r) => r.uri);
      expect(resources.filter((uri) => uri.startsWith('ui://'))).toEqual([]);
    } finally {
      await plain.client.close();
    }
  });

  it('in the SDK v2 client with its default version negotiation, sees both apps too', async () => {
    const client = new ModernClient({ name: 'sessions-v2', version: '1.0.0' }, { capabilities: APPS });
    await client.connect(new ModernTransport(new URL(`${running.url}/mcp`), { requestInit: { headers: bearer(BOB) } }));
    try {
      expect(namesOf((await client.listTools()).tools)).toEqual(expect.arrayContaining(['watch', 'live_ticket']));
      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources).toContain('ui://selenium-flow/live');
    } finally {
      await client.close();
    }
  });

  it('gets an Mcp-Session-Id only its own token may use; an unknown, forged or ended id is a 404', async () => {
    const opened = await post(ALICE, INITIALIZE);
    expect(opened.status).toBe(200);
    await opened.body?.cancel();
    const id = opened.headers.get('mcp-session-id') ?? '';
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const listed = await post(ALICE, TOOLS_LIST, id);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"live_ticket"');
    // Another token sending the id, a forged id: the client is told to initialize again.
    for (const [token, sent] of [
      [BOB, id],
      [ALICE, `${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`],
      [ALICE, 'x'.repeat(4000)],
    ] as const) {
      const refused = await post(token, TOOLS_LIST, sent);
      expect(refused.status).toBe(404);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('initialize');
    }
    const notTheirs = await fetch(`${running.url}/mcp`, {
      method: 'DELETE',
      headers: { ...bearer(BOB), 'mcp-session-id': id },
    });
    expect(notTheirs.status).toBe(404);

    const ended = await fetch(`${running.url}/mcp`, {
      method: 'DELETE',
      headers: { ...bearer(ALICE), 'mcp-session-id': id },
    });
    expect(ended.status).toBe(204);
    expect((await post(ALICE, TOOLS_LIST, id)).status).toBe(404);
    const stream = await fetch(`${running.url}/mcp`, {
      headers: { ...bearer(ALICE), accept: 'text/event-stream', 'mcp-session-id': id },
    });
    expect(stream.status).toBe(404);
  });

  it('lets a page of an allowed origin send MCP’s headers and read the session and the refusals', async () => {
    const preflight = (origin: string) =>
      fetch(`${running.url}/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'mcp-session-id',
        },
      });
    const allowed = await preflight('https://host.example');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://host.example');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('DELETE');
    const other = await preflight('https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const page = { origin: 'https://host.example' };
    const opened = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(ALICE),
        ...page,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(INITIALIZE),
    });
    await opened.body?.cancel();
    expect(opened.headers.get('access-control-allow-origin')).toBe('https://host.example');
    expect(opened.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const ended = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer(ALICE), ...page, 'content-type': 'application/json', 'mcp-session-id': 'forged' },
      body: JSON.stringify(TOOLS_LIST),
    });
    expect(ended.status).toBe(404);
    expect(ended.headers.get('access-control-allow-origin')).toBe('https://host.example');
  });

  it('on plain /mcp keeps one workspace for its session: its browser persists across calls, and DELETE ends it', async () => {
    const mine = await legacyClient(ALICE);
    const other = await legacyClient(ALICE);
    try {
      const call = async (client: LegacyClient, name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as {
          isError?: boolean;
          structuredContent?: Record<string, unknown>;
        };
      const opened = await call(mine.client, 'open_session');
      expect(opened.isError).toBeFalsy();
      // No handle to carry: the session is the workspace.
      expect(opened.structuredContent).not.toHaveProperty('session_id');
      await call(mine.client, 'navigate', { url: `${site}/table.html` });
      expect((await call(mine.client, 'extract', { selector: { css: 'h1' } })).structuredContent).toEqual({
        value: 'Data table',
      });
      expect((await call(mine.client, 'current_workspace')).structuredContent).toMatchObject({
        mode: 'saved',
        url: `${site}/table.html`,
        browser: { alive: true },
      });
      // Another session of the same token is another workspace.
      expect((await call(other.client, 'current_workspace')).structuredContent).toMatchObject({ browser: null });

      const key = sessionCaller({}, mine.transport.sessionId ?? '').key ?? '';
      const gridId = (await running.server.store.get(key))?.gridId ?? '';
      expect(await gridHas(gridId)).toBe(true);
      await mine.transport.terminateSession();
      // The Grid says a session it ended is gone a moment later.
      await expect.poll(() => gridHas(gridId), { timeout: 10_000, interval: 200 }).toBe(false);
    } finally {
      await mine.client.close();
      await other.client.close();
    }
  });
});

describe('the Inspector CLI (@modelcontextprotocol/inspector-cli: SDK 1.x, its default era 2025-11-25)', () => {
  it('lists workspace_files with its app, and what needs an app only to a host that announced it', async () => {
    const cli = join(
      dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')),
      'build',
    );
    // It finds its own package.json from its working directory.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['index.js', `${running.url}/mcp`, '--method', 'tools/list', '--header', `Authorization: Bearer ${BOB}`],
      { cwd: cli, timeout: 30_000 },
    );
    const tools = (JSON.parse(stdout) as { tools: { name: string; _meta?: Record<string, unknown> }[] }).tools;
    expect(uiOf(tools, 'workspace_files')).toEqual({ resourceUri: 'ui://selenium-flow/files' });
    expect(namesOf(tools)).not.toContain('watch');
  });
});
