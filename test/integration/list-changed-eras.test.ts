import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_STREAMS_PER_CALLER } from '../../src/mcp/legacy-stream.js';
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
      for (let i = 0; i < LEGACY_STREAMS_PER_CALLER; i += 1) {
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
