import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS_PER_CALLER } from '../../src/limits.js';
import { poll } from '../../src/poll.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const ADMIN = 'list-changed-admin-token';
let running: RunningServer;

beforeAll(async () => {
  running = await startServer({ FLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'list-changed-')), ADMIN_TOKEN: ADMIN });
});
afterAll(async () => {
  await running.close();
});

const FLOW = (title: string) => ({
  description: `Read the title (${title})`,
  steps: [{ id: 'title', tool: 'extract', args: { selector: { css: 'title' } }, return: true }],
});

async function save(workspace: string, name: string): Promise<number> {
  const response = await fetch(`${running.url}/flows/${name}`, {
    method: 'PUT',
    headers: { 'X-Workspace': workspace, 'content-type': 'application/json' },
    body: JSON.stringify(FLOW(name)),
  });
  return response.status;
}

/** An operator's save into the shared library (agents cannot write it). */
async function saveShared(name: string): Promise<number> {
  const response = await fetch(`${running.url}/admin/api/workspaces/global/flows/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(FLOW(name)),
  });
  return response.status;
}

/** Counts tools/list_changed as it arrives; `until(n)` resolves once n have arrived in all. */
function counter() {
  let heard = 0;
  let waiting: (() => void)[] = [];
  return {
    heard: () => heard,
    hear: () => {
      heard += 1;
      for (const wake of waiting) {
        wake();
      }
      waiting = [];
    },
    until: async (count: number) => {
      while (heard < count) {
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
}

/**
 * A 2025-11-25 client (SDK v1) as clients connect today: it opens the GET event stream itself
 * after initialize. `streamOpen` resolves when the server answered that GET with a stream, so
 * the test saves only once the client can hear.
 */
async function legacyListening(workspace: string) {
  const url = new URL(`${running.url}/mcp`);
  url.searchParams.set('workspace', workspace);
  let opened: () => void = () => undefined;
  const streamOpen = new Promise<void>((resolve) => (opened = resolve));
  const watching: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'GET' && response.headers.get('content-type') === 'text/event-stream') {
      opened();
    }
    return response;
  };
  const client = new LegacyClient({ name: 'legacy-listener', version: '1.0.0' });
  const count = counter();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => count.hear());
  await client.connect(new LegacyTransport(url, { fetch: watching }));
  await streamOpen;
  expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  return { client, ...count };
}

async function modernListening(workspace: string) {
  const url = new URL(`${running.url}/mcp`);
  url.searchParams.set('workspace', workspace);
  const client = new ModernClient(
    { name: 'modern-listener', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(url));
  const count = counter();
  client.setNotificationHandler('notifications/tools/list_changed', () => count.hear());
  const subscription = await client.listen({ toolsListChanged: true });
  return { client, subscription, ...count };
}

const names = async (client: LegacyClient) => (await client.listTools()).tools.map((t) => t.name);

describe('a 2025-11-25 client over Streamable HTTP', () => {
  it("hears its own workspace's and the shared library's flow changes on its GET stream, never a neighbour's", async () => {
    const mine = await legacyListening('lc-a');
    const neighbour = await legacyListening('lc-b');
    const modern = await modernListening('lc-a');
    try {
      expect(await names(mine.client)).not.toContain('flow_mine');

      expect(await save('lc-b', 'theirs')).toBe(200);
      await neighbour.until(1);
      expect(await save('lc-a', 'mine')).toBe(200);
      await mine.until(1);
      await modern.until(1);
      // The stream is ordered: had lc-a heard lc-b's save, that notice would have come first.
      expect(mine.heard()).toBe(1);
      expect(modern.heard()).toBe(1);
      expect(await names(mine.client)).toContain('flow_mine');
      expect(await names(mine.client)).not.toContain('flow_theirs');

      expect(await saveShared('everyones')).toBe(200);
      await mine.until(2);
      await neighbour.until(2);
      await modern.until(2);
      expect(await names(mine.client)).toContain('flow_everyones');
      expect(await names(neighbour.client)).toContain('flow_everyones');
    } finally {
      await mine.client.close();
      await neighbour.client.close();
      await modern.subscription.close();
      await modern.client.close();
    }
  });

  it('holds a finite number of streams per caller, asks for the event-stream Accept, and checks Origin', async () => {
    const url = `${running.url}/mcp?workspace=lc-limit`;
    const held: AbortController[] = [];
    try {
      for (let i = 0; i < STREAMS_PER_CALLER; i += 1) {
        const abort = new AbortController();
        held.push(abort);
        const response = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/event-stream');
      }
      const refused = await fetch(url, { headers: { accept: 'text/event-stream' } });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/close one/);
      // another workspace's caller has slots of its own
      const other = new AbortController();
      held.push(other);
      const elsewhere = await fetch(`${running.url}/mcp?workspace=lc-other`, {
        headers: { accept: 'text/event-stream' },
        signal: other.signal,
      });
      expect(elsewhere.status).toBe(200);
    } finally {
      for (const abort of held) {
        abort.abort();
      }
    }
    const plain = await fetch(url, { headers: { accept: 'application/json' } });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error: { message: string } }).error.message).toMatch(/text\/event-stream/);
    const foreign = await fetch(url, { headers: { accept: 'text/event-stream', origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });
});

/** One SSE event stream, read event by event: each as its id and its data's JSON-RPC method, if any. */
function eventsOf(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  return async (): Promise<{ id?: string; method?: string }> => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (block.startsWith(':')) {
          continue;
        }
        const field = (name: string) => [...block.matchAll(/^(\w+): ?(.*)$/gm)].find((m) => m[1] === name)?.[2];
        const data = field('data');
        return { id: field('id'), method: data ? (JSON.parse(data) as { method?: string }).method : undefined };
      }
      const { value, done } = await reader.read();
      if (done) {
        throw new Error('the stream ended');
      }
      buffered += value;
    }
  };
}

describe('a 2025-11-25 GET stream resumed with Last-Event-ID', () => {
  it('hears at once the change it missed while away, and nothing when it missed none', async () => {
    const url = `${running.url}/mcp?workspace=lc-resume`;
    const initialized = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'resume', version: '1' } },
      }),
    });
    await initialized.body?.cancel();
    const session = { 'mcp-session-id': initialized.headers.get('mcp-session-id') ?? '' };
    const listen = async (lastEventId?: string) => {
      const abort = new AbortController();
      const response = await fetch(url, {
        headers: { accept: 'text/event-stream', ...session, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      const next = eventsOf(response);
      const priming = await next();
      return { next, id: priming.id ?? '', close: () => abort.abort() };
    };

    const first = await listen();
    first.close();
    // Away: the workspace's flow tools change, and nobody is listening.
    expect(await save('lc-resume', 'missed')).toBe(200);
    const resumed = await listen(first.id);
    expect(await resumed.next()).toMatchObject({ method: 'notifications/tools/list_changed' });
    resumed.close();

    // Resumed from an id after the change: nothing is replayed, and the next change is heard once.
    const current = await listen(resumed.id);
    expect(await save('lc-resume', 'heard')).toBe(200);
    const heard = await current.next();
    expect(heard).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect(heard.id).not.toBe(resumed.id);
    current.close();
  });
});

describe('notification streams per token', () => {
  const ALICE = 'alice-stream-token-0123456789';
  const BOB = 'bob-stream-token-0123456789ab';
  const SHARE = 3;
  let dir: string;
  let server: RunningServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stream-tokens-'));
    await writeFile(
      join(dir, 'tokens.yaml'),
      `tokens:\n  - name: alice\n    token: ${ALICE}\n    workspaces: ["a-*"]\n  - name: bob\n    token: ${BOB}\n    workspaces: ["b-*"]\n`,
    );
    // With flows on: the tools list can change, so a listen stream stays open (without, it ends at once).
    server = await startServer({
      TOKENS_FILE: join(dir, 'tokens.yaml'),
      STREAMS_PER_TOKEN: String(SHARE),
      FLOW_DATA_DIR: join(dir, 'data'),
    });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = (token: string, workspace: string, signal?: AbortSignal) =>
    fetch(`${server.url}/mcp?workspace=${workspace}`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      signal,
    });

  async function listening(token: string, workspace: string) {
    const client = new ModernClient(
      { name: 'modern-listener', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const url = new URL(`${server.url}/mcp?workspace=${workspace}`);
    await client.connect(new ModernTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  it('lets one token hold its share across workspaces and both eras, and another token still opens', async () => {
    const held: AbortController[] = [];
    const modern = await listening(ALICE, 'a-modern');
    try {
      // One listen stream (2026-07-28) and two GET streams (2025-11-25), each in a workspace of its own.
      const subscription = await modern.listen({ toolsListChanged: true });
      for (const workspace of ['a-1', 'a-2']) {
        const abort = new AbortController();
        held.push(abort);
        expect((await open(ALICE, workspace, abort.signal)).status).toBe(200);
      }
      // Alice's share is full: a workspace she has not streamed from yet is refused too, saying why.
      const refused = await open(ALICE, 'a-3');
      expect(refused.status).toBe(429);
      const said = ((await refused.json()) as { error: { message: string } }).error.message;
      expect(said).toMatch(/This token already holds 3 notification streams.*STREAMS_PER_TOKEN/);
      const overMcp = await listening(ALICE, 'a-4');
      try {
        await expect(overMcp.listen({ toolsListChanged: true })).rejects.toThrow(/STREAMS_PER_TOKEN/);
      } finally {
        await overMcp.close();
      }
      // Bob's streams are his own.
      const bobs = new AbortController();
      held.push(bobs);
      expect((await open(BOB, 'b-1', bobs.signal)).status).toBe(200);
      // A stream Alice closes gives its place back.
      held.shift()?.abort();
      await subscription.close();
      const again = new AbortController();
      held.push(again);
      const reopened = await poll(
        async () => {
          const response = await open(ALICE, 'a-3', again.signal);
          return response.status === 200 ? response : undefined;
        },
        5_000,
        100,
      );
      expect(reopened?.status).toBe(200);
    } finally {
      for (const abort of held) {
        abort.abort();
      }
      await modern.close();
    }
  });
});
