import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { heardIs } from '../helpers/browser-window.js';
import { RfbClient } from '../helpers/rfb-client.js';
import { openWatchable, rest, startServer, watchableSlotsSeen, type RunningServer } from '../helpers/server.js';
import { poll } from '../../src/poll.js';

const ADMIN = 'live-admin-token';
const TOKEN = 'live-bearer-token';
const admin = { authorization: `Bearer ${ADMIN}` };
let running: RunningServer;
let wsBase: string;

beforeAll(async () => {
  // LIVE_VIEW prefer: this file's browser takes the shared Grid's one watchable slot.
  running = await startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN, LIVE_VIEW: 'prefer' });
  wsBase = running.url.replace(/^http/, 'ws');
  await openWatchable(running, 'watched', { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'watched' });
}, 240_000);

afterAll(async () => {
  await rest(running.url, '/browser/end-browser', {}, { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'watched' });
  await running.close();
});

async function ticket(
  workspace = 'watched',
  who = 'Kelly',
): Promise<{ status: number; body: Record<string, unknown> }> {
  return rest(running.url, `/admin/api/workspaces/${workspace}/live-ticket`, { who }, admin);
}

interface Opened {
  ws: WebSocket;
  first: Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

function connect(path: string, headers: Record<string, string> = {}): Opened {
  const ws = new WebSocket(wsBase + path, { headers });
  const first = new Promise<string>((resolve, reject) => {
    ws.once('message', (data: Buffer) => resolve(data.toString('latin1')));
    ws.once('error', reject);
  });
  first.catch(() => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { ws, first, closed };
}

/** The HTTP status of an upgrade the server refused. */
function refusedWith(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsBase + path, { headers });
    ws.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => undefined);
  });
}

describe('a watchable Firefox', () => {
  it('is headed on a display of its own, and its VNC greets through the tunnel', async () => {
    const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'watched-firefox' };
    try {
      await openWatchable(running, 'watched-firefox', agent, {
        first: { path: '/browser/open-session', body: { browser: 'firefox' } },
        browser: 'firefox',
      });
      const status = await rest(running.url, '/admin/api/workspaces/watched-firefox/live', undefined, admin);
      expect(status.body).toEqual({
        browser: true,
        watchable: true,
        grid_live_view: true,
        window: { width: 1280, height: 900 },
      });
      const minted = await ticket('watched-firefox');
      expect(minted.status).toBe(200);
      const viewer = connect(String(minted.body.path));
      expect(await viewer.first).toBe('RFB 003.008\n');
      viewer.ws.close();
      await viewer.closed;
      // Headed on the display (1920×1080): headless Firefox reports a screen of its own, 1366×768.
      const screen = await rest(running.url, '/browser/execute-script', { script: 'return screen.width' }, agent);
      expect(screen.body).toMatchObject({ result: 1920 });
    } finally {
      await rest(running.url, '/browser/end-browser', {}, agent);
    }
  });
});

describe('the live tunnel /admin/live/<workspace>', () => {
  it('says whether the browser can be watched', async () => {
    const status = await rest(running.url, '/admin/api/workspaces/watched/live', undefined, admin);
    expect(status.body).toEqual({
      browser: true,
      watchable: true,
      grid_live_view: true,
      window: { width: 1280, height: 900 },
    });
    const none = await rest(running.url, '/admin/api/workspaces/nobody-here/live', undefined, admin);
    expect(none.body).toMatchObject({ browser: false, watchable: false });
    expect(none.body.message).toMatch(/has no browser now/);
  });

  it('carries the VNC server’s greeting through a ticket minted with the admin token', async () => {
    const minted = await ticket();
    expect(minted.status).toBe(200);
    expect(minted.body.window).toEqual({ width: 1280, height: 900 });
    const viewer = connect(String(minted.body.path));
    expect(await viewer.first).toBe('RFB 003.008\n');
    viewer.ws.close();
    await viewer.closed;
    await expect.poll(() => running.server.liveView.tunnels.size).toBe(0);
  });

  it('refuses a ticket used twice, a wrong one, and one for another workspace', async () => {
    const minted = await ticket();
    const first = connect(String(minted.body.path));
    expect(await first.first).toBe('RFB 003.008\n');
    const again = await refusedWith(String(minted.body.path));
    expect(again.status).toBe(401);
    expect(again.body).toMatch(/used or expired live-view ticket/);
    first.ws.close();
    expect((await refusedWith('/admin/live/watched?ticket=' + 'x'.repeat(32))).status).toBe(401);
    const other = await ticket();
    expect((await refusedWith(`/admin/live/elsewhere?ticket=${String(other.body.ticket)}`)).status).toBe(401);
    // Taken by that refusal too: a ticket is tried once.
    expect((await refusedWith(String(other.body.path))).status).toBe(401);
  });

  it('refuses without the admin token, and a page from another origin', async () => {
    const without = await rest(running.url, '/admin/api/workspaces/watched/live-ticket', {}, {});
    expect(without.status).toBe(401);
    const minted = await ticket();
    const foreign = await refusedWith(String(minted.body.path), { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const badHost = await refusedWith(String(minted.body.path), { host: 'rebound.example' });
    expect(badHost.status).toBe(403);
  });

  it('refuses a workspace with no browser before minting anything', async () => {
    const refused = await ticket('nobody-here');
    expect(refused.status).toBe(404);
    expect(String((refused.body.error as { message: string }).message)).toMatch(/no browser to watch/);
  });

  it('closes both sockets when the viewer leaves while the Grid side still connects, and when closed twice', async () => {
    const minted = await ticket();
    const viewer = connect(String(minted.body.path));
    await new Promise<void>((resolve) => viewer.ws.once('open', () => resolve()));
    const [tunnel] = running.server.liveView.tunnels.of('watched');
    expect(tunnel).toBeDefined();
    tunnel?.close(1000, 'first');
    tunnel?.close(1000, 'second');
    expect((await viewer.closed).code).toBe(1000);
    expect(tunnel?.open).toBe(false);
    expect(running.server.liveView.tunnels.size).toBe(0);
  });
});

describe('Control through a viewer', () => {
  it('is held while the viewer holds it, and closing the tab withdraws it', async () => {
    const minted = await ticket();
    const viewer = connect(String(minted.body.path));
    expect(await viewer.first).toBe('RFB 003.008\n');
    const response = await fetch(`${running.url}/admin/api/workspaces/watched/control`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ who: 'Kelly', viewer: minted.body.viewer }),
    });
    expect(((await response.json()) as { state: string }).state).toBe('held');
    const refused = await rest(
      running.url,
      '/browser/navigate',
      { url: `${inject('siteUrl')}/welcome.html` },
      {
        authorization: `Bearer ${TOKEN}`,
        'x-workspace': 'watched',
      },
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    viewer.ws.close();
    await viewer.closed;
    await expect.poll(() => running.server.liveView.controls.episode('watched')).toBeUndefined();
  });

  it('says who holds it in the live status, and a viewer’s hand-back lets go of that viewer only', async () => {
    const control = (method: 'POST' | 'DELETE', body: Record<string, unknown>) =>
      fetch(`${running.url}/admin/api/workspaces/watched/control`, {
        method,
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => (await r.json()) as Record<string, unknown>);
    const [first, second] = [await ticket(), await ticket()];
    expect((await control('POST', { who: 'Kelly', viewer: first.body.viewer })).state).toBe('held');
    expect((await control('POST', { who: 'Kelly', viewer: second.body.viewer })).state).toBe('held');
    const status = await rest(running.url, '/admin/api/workspaces/watched/live', undefined, admin);
    expect(status.body.control).toMatchObject({ state: 'held', who: 'Kelly', since: expect.any(String) as string });

    // Kelly's other viewer still holds it.
    const one = await control('DELETE', { who: 'Kelly', viewer: first.body.viewer });
    expect(one).toMatchObject({ state: 'held', who: 'Kelly' });
    expect(await running.server.liveView.controls.episode('watched')).toMatchObject({ state: 'held' });
    expect(await control('DELETE', { who: 'Kelly', viewer: second.body.viewer })).toEqual({ state: 'handed_back' });
    const after = await rest(running.url, '/admin/api/workspaces/watched/live', undefined, admin);
    expect(after.body.control).toBeUndefined();
  });
});

describe('Watch is watch: input reaches the VNC server only under Control', () => {
  const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'watched' };
  // A read that answers under Control too: the page lists what it heard.
  const heard = async () => {
    const answer = await rest(running.url, '/browser/extract', { selector: { css: '#heard li' }, all: true }, agent);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.values as string[];
  };
  const control = (method: 'POST' | 'DELETE', viewer: unknown) =>
    fetch(`${running.url}/admin/api/workspaces/watched/control`, {
      method,
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ who: 'Kelly', viewer }),
    }).then(async (r) => (await r.json()) as Record<string, unknown>);
  /** A click in the page and three keys, then a screen read: its answer comes after the input went through the tunnel. */
  const poke = async (client: RfbClient, text: string) => {
    client.click(Math.floor(client.width / 2), Math.floor(client.height / 2));
    client.type(text);
    await client.colours(0, 0, 8, 8);
  };

  it('drops a raw RFB client’s keys and clicks without Control, passes them with it, and drops them after the hand-back', async () => {
    const opened = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/input-log.html` }, agent);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const minted = await ticket();
    const client = await RfbClient.open(wsBase + String(minted.body.path));
    await client.handshake();
    try {
      // No clock decides that nothing passed: one connection delivers in order, so what passes
      // later under Control would come after 'abc' had it passed, and the page's list proves it.
      await poke(client, 'abc');
      // A person merely watching refuses no agent: a call that acts on the page answers.
      const acted = await rest(running.url, '/browser/execute-script', { script: 'return window.heard' }, agent);
      expect(acted.status, JSON.stringify(acted.body)).toBe(200);

      expect((await control('POST', minted.body.viewer)).state).toBe('held');
      await poke(client, 'def');
      const held = ['button 0', 'key d', 'key e', 'key f'];
      await heardIs(heard, held, () => watchableSlotsSeen(running, 'watched'));

      expect(await control('DELETE', minted.body.viewer)).toEqual({ state: 'handed_back' });
      await poke(client, 'xyz');
      // The marker: held again, one more key; 'xyz' would stand before it had it passed.
      expect((await control('POST', minted.body.viewer)).state).toBe('held');
      await poke(client, 'q');
      await heardIs(heard, [...held, 'button 0', 'key q'], () => watchableSlotsSeen(running, 'watched'));
      expect(await control('DELETE', minted.body.viewer)).toEqual({ state: 'handed_back' });
    } finally {
      client.close();
      await client.closed;
    }
  });

  it('closes a viewer that sends a message the live view does not pass, with the reason', async () => {
    const minted = await ticket();
    const client = await RfbClient.open(wsBase + String(minted.body.path));
    await client.handshake();
    // QEMU's extended key event (255): noVNC sends it only where the server announced it, which the tunnel prevents.
    client.send(Buffer.from([255, 0, 0, 1, 0, 0, 0, 0x61, 0, 0, 0, 30]));
    expect(await client.closed).toEqual({
      code: 1008,
      reason: 'The live view passes no VNC message of type 255; reconnect.',
    });
  });
});

describe('the live view follows the tab', () => {
  it('shows the tab the agent selects, opens or is left on, as a person watching sees it', async () => {
    const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'watched' };
    const site = inject('siteUrl');
    const navigate = async (args: Record<string, unknown>) => {
      const answer = await rest(running.url, '/browser/navigate', args, agent);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };
    const minted = await ticket();
    const client = await RfbClient.open(wsBase + String(minted.body.path));
    try {
      await client.handshake();
      // The middle of the page, below any browser chrome: what fills it is the page shown.
      const shown = () => client.mostly(Math.floor(client.width / 2) - 50, Math.floor(client.height / 2), 100, 100);
      const settlesOn = async (expected: string) =>
        (await poll(async () => ((await shown()) === expected ? true : undefined), 10_000, 200)) ?? shown();

      await navigate({ url: `${site}/colour.html?c=ff0000` });
      const red = await poll(
        async () => {
          const first = await shown();
          return first === (await shown()) ? first : undefined;
        },
        10_000,
        200,
      );
      await navigate({ action: 'new_tab', url: `${site}/colour.html?c=0000ff` });
      const blue = await poll(
        async () => {
          const now = await shown();
          return now !== red ? now : undefined;
        },
        10_000,
        200,
      );
      expect(blue, 'the new tab never showed').toBeDefined();

      await navigate({ tab: 0 });
      expect(await settlesOn(red ?? '')).toBe(true);
      await navigate({ tab: 1 });
      expect(await settlesOn(blue ?? '')).toBe(true);
      await navigate({ action: 'close_tab' });
      expect(await settlesOn(red ?? '')).toBe(true);
    } finally {
      client.close();
    }
  });
});

describe('a server stopping', () => {
  it('closes its viewers with 1012', async () => {
    const own = await startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN, LIVE_VIEW: 'off' });
    try {
      // The other server's browser: a record in this server's own store points at it (as a replica's would).
      const record = await running.server.store.get('named:watched');
      await own.server.store.put('named:watched', record!);
      const minted = await rest(own.url, '/admin/api/workspaces/watched/live-ticket', {}, admin);
      const viewer = new WebSocket(own.url.replace(/^http/, 'ws') + String(minted.body.path));
      const greeted = new Promise<void>((resolve) => viewer.once('message', () => resolve()));
      const closed = new Promise<number>((resolve) => viewer.once('close', (code) => resolve(code)));
      await greeted;
      // Not this server's browser to end at its close.
      await own.server.store.delete('named:watched');
      await own.close();
      expect(await closed).toBe(1012);
    } finally {
      await own.close().catch(() => undefined);
    }
  });
});

describe('a browser without VNC', () => {
  it('is refused with the reason before any ticket is minted', async () => {
    const record = await running.server.store.get('named:watched');
    const { 'se:vnc': _vnc, ...headless } = record!.capabilities ?? {};
    await running.server.store.put('named:headless', { ...record!, capabilities: headless });
    try {
      const refused = await ticket('headless');
      expect(refused.status).toBe(409);
      expect(String((refused.body.error as { message: string }).message)).toMatch(/slot without VNC/);
    } finally {
      await running.server.store.delete('named:headless');
    }
  });
});
