import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectAppClient } from '../ui/app-host.js';
import { heardIs } from '../helpers/browser-window.js';
import { RfbClient } from '../helpers/rfb-client.js';
import { openWatchable, rest, startServer, watchableSlotsSeen, type RunningServer } from '../helpers/server.js';

/**
 * The live app's tools (watch, live_ticket, take_control, hand_back) as the app calls them: over
 * MCP, with the caller's own credential, on the caller's own workspace. The rendering in a host
 * is test/ui/apps-live.test.ts; this is the server's side of it, against the real Grid and VNC.
 * The server lets apps take Control (CONTROL_BY=apps) for a host's token (TOKENS_FILE control:
 * true); the agent holds a token of its own, which may use the same workspace.
 */
const TOKEN = 'live-app-bearer-token';
const HOST_TOKEN = 'live-app-token-a-host-holds';
let tokensDir: string;
const WORKSPACE = 'app-watched';
const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };
let running: RunningServer;
let wsBase: string;
type Answer = { isError: boolean; structured: Record<string, unknown> | undefined; text: string };
/** A client that renders apps: only to it are the app's own tools (live_ticket…) listed and callable. */
async function appClient(workspace: string, token = HOST_TOKEN) {
  const host = await connectAppClient(running.url, {
    workspace,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    close: () => host.close(),
    names: async () => (await host.client.listTools()).tools.map((t) => t.name),
    call: async (name: string, args: Record<string, unknown>): Promise<Answer> => {
      const r = (await host.client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
        content: { type: string; text?: string }[];
      };
      return {
        isError: r.isError === true,
        structured: r.structuredContent,
        text: r.content.map((c) => c.text ?? '').join(''),
      };
    },
  };
}
let app: Awaited<ReturnType<typeof appClient>>;

beforeAll(async () => {
  tokensDir = await mkdtemp(join(tmpdir(), 'sf-live-app-'));
  const tokensFile = join(tokensDir, 'tokens.yaml');
  await writeFile(
    tokensFile,
    [
      'tokens:',
      '  - {name: agent, token: ' + TOKEN + ', workspaces: ["app-*"]}',
      '  - {name: host, token: ' + HOST_TOKEN + ', workspaces: ["app-*"], control: true}',
      '',
    ].join('\n'),
  );
  running = await startServer({ TOKENS_FILE: tokensFile, CONTROL_BY: 'apps', LIVE_VIEW: 'prefer' });
  wsBase = running.url.replace(/^http/, 'ws');
  await openWatchable(running, WORKSPACE, agent, {
    first: { path: '/browser/navigate', body: { url: `${inject('siteUrl')}/input-log.html` } },
  });
  app = await appClient(WORKSPACE);
}, 240_000);

afterAll(async () => {
  await app?.close();
  await rest(running.url, '/browser/end-browser', {}, agent);
  await running.close();
  await rm(tokensDir, { recursive: true, force: true });
});

const heard = async () => {
  const answer = await rest(running.url, '/browser/extract', { selector: { css: '#heard li' }, all: true }, agent);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.values as string[];
};

/** A click in the page and three keys, then a screen read: its answer comes after the input went through. */
const poke = async (client: RfbClient, text: string) => {
  client.click(Math.floor(client.width / 2), Math.floor(client.height / 2));
  client.type(text);
  await client.colours(0, 0, 8, 8);
};

type Ticket = { path: string; viewer: string; ticket: string; window: { width: number; height: number } };

async function ticket(): Promise<Ticket> {
  const minted = await app.call('live_ticket', {});
  expect(minted.isError, minted.text).toBe(false);
  return minted.structured as Ticket;
}

describe('the live app’s tools', () => {
  it('watch says the caller’s own browser can be watched', async () => {
    const watched = await app.call('watch', {});
    expect(watched.isError, watched.text).toBe(false);
    expect(watched.structured).toEqual({ watchable: true });
  });

  it('mints a ticket for the caller’s own workspace only: no argument names another, nor opens its tunnel', async () => {
    const other = await app.call('live_ticket', { workspace: 'someone-else' });
    expect(other.isError).toBe(true);
    const minted = await ticket();
    expect(minted.path).toBe(`/admin/live/${WORKSPACE}?ticket=${minted.ticket}`);
    // The app shows that much of the screen: the window as the workspace opened it.
    expect(minted.window).toEqual({ width: 1280, height: 900 });
    // The same ticket on another workspace's path opens nothing, and is spent by trying.
    const refused = await new Promise<number>((resolve, reject) => {
      void RfbClient.open(`${wsBase}/admin/live/someone-else?ticket=${minted.ticket}`).then(
        () => reject(new Error('the upgrade was accepted')),
        (error: unknown) => resolve(Number(/\d{3}/.exec(String(error))?.[0] ?? 0)),
      );
    });
    expect(refused).toBe(401);
    // A caller of another workspace gets that workspace's answer, never this one's browser.
    const elsewhere = await appClient('app-elsewhere');
    try {
      const theirs = await elsewhere.call('live_ticket', {});
      expect(theirs.isError).toBe(true);
      expect(theirs.text).toContain('Workspace app-elsewhere has no browser to watch');
    } finally {
      await elsewhere.close();
    }
  });

  it('Watch is watch; take_control lets this viewer’s keys through and refuses the agent; hand_back ends await_control', async () => {
    const minted = await ticket();
    const client = await RfbClient.open(wsBase + minted.path);
    await client.handshake();
    try {
      // No clock decides that nothing passed: one connection delivers in order, so had 'abc' passed
      // while watching, it would stand before what passes under Control, and the page's list shows it.
      await poke(client, 'abc');

      const taken = await app.call('take_control', { viewer: minted.viewer });
      expect(taken.isError, taken.text).toBe(false);
      expect(taken.structured).toMatchObject({ state: 'held', who: 'the person at the MCP client' });
      await poke(client, 'abc');
      const held = ['button 0', 'key a', 'key b', 'key c'];
      await heardIs(heard, held, () => watchableSlotsSeen(running, WORKSPACE));

      const navigate = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html` }, agent);
      expect(navigate.status).toBe(409);
      expect(String((navigate.body.error as { message: string }).message)).toMatch(
        /^the person at the MCP client has control of this browser since \d\d:\d\d UTC\./,
      );

      const waiting = rest(running.url, '/browser/await-control', {}, agent);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const back = await app.call('hand_back', { viewer: minted.viewer });
      expect(back.structured).toEqual({ state: 'handed_back' });
      const awaited = await waiting;
      expect(awaited.status).toBe(200);
      expect(awaited.body).toMatchObject({ handed_back: true, who: 'the person at the MCP client' });
      expect(String(awaited.body.outline)).not.toBe('');

      await poke(client, 'xyz');
      // The marker: held again, one more key; 'xyz' would stand before it had it passed.
      expect((await app.call('take_control', { viewer: minted.viewer })).structured).toMatchObject({ state: 'held' });
      await poke(client, 'q');
      await heardIs(heard, [...held, 'button 0', 'key q'], () => watchableSlotsSeen(running, WORKSPACE));
      const again = await app.call('hand_back', { viewer: minted.viewer });
      expect(again.structured).toEqual({ state: 'handed_back' });
      // The hand-back is said to the agent, once, on its next call: the person's own button
      // answering it took it, and an await_control woken by it answered "nobody".
      const next = await rest(running.url, '/browser/extract', { selector: { css: 'h1' } }, agent);
      expect(next.body.control).toMatchObject({ state: 'handed_back', who: 'the person at the MCP client' });
    } finally {
      client.close();
      await client.closed;
    }
  });

  it('gives Control to no REST call and to no client on the agent’s token, even one that declares the UI extension', async () => {
    for (const [method, path] of [
      ['POST', '/workspace/live/control'],
      ['DELETE', '/workspace/live/control'],
      ['POST', '/workspace/live/ticket'],
    ] as const) {
      const response = await fetch(`${running.url}${path}`, {
        method,
        headers: { ...agent, 'content-type': 'application/json' },
        body: JSON.stringify({ viewer: 'AAAAAAAAAAAAAAAA' }),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const mimic = await appClient(WORKSPACE, TOKEN);
    try {
      const listed = await mimic.names();
      expect(listed).toContain('live_ticket');
      expect(listed).not.toContain('take_control');
      expect(listed).not.toContain('hand_back');
      const minted = (await mimic.call('live_ticket', {})).structured as Ticket & { control_refused?: string };
      expect(minted.control_refused).toContain('control: true in TOKENS_FILE');
      await expect(mimic.call('take_control', { viewer: minted.viewer })).rejects.toThrow(
        /Unknown tool "take_control"/,
      );
      const navigate = await rest(
        running.url,
        '/browser/navigate',
        { url: `${inject('siteUrl')}/input-log.html` },
        agent,
      );
      expect(navigate.status, JSON.stringify(navigate.body)).toBe(200);
    } finally {
      await mimic.close();
    }
    expect(await app.names()).toContain('take_control');
  });

  it('a ticket says the window as it was last resized: the app shows that much of the screen', async () => {
    const resized = await rest(running.url, '/browser/resize', { width: 1000, height: 700 }, agent);
    expect(resized.status, JSON.stringify(resized.body)).toBe(200);
    expect((await ticket()).window).toEqual({ width: 1000, height: 700 });
  });
});
