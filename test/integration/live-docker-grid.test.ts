import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startHubAndNodes, type EmbeddedGrid } from '../../src/embedded-grid/index.js';
import { firefoxSupport } from '../../src/embedded-grid/config.js';
import { DOCKER_SELENIUM_VNC_PASSWORD, WATCHABLE_NODE_ENV } from '../../src/embedded-grid/docker-node.js';
import { fetchGridStatus } from '../../src/grid/status.js';
import { FIXTURE_PORTS } from '../fixtures/site.js';
import { RfbClient } from '../helpers/rfb-client.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

// The Grid people run: a hub and a node configured as docker-selenium's node images configure
// theirs (its own Xvfb display, x11vnc, the noVNC websocket port, SE_START_XVFB/VNC/NO_VNC,
// one session), from the jar. The server knows only the hub's URL and sends no steering
// capability: the node advertises se:vncEnabled by itself, and the server must run its browser
// headed there, show it through the tunnel, and hold Control as on the embedded Grid.
const ADMIN = 'docker-grid-admin';
const TOKEN = 'docker-grid-bearer';
const WORKSPACE = 'on-docker-node';
const admin = { authorization: `Bearer ${ADMIN}` };
const agent = { authorization: `Bearer ${TOKEN}`, 'x-workspace': WORKSPACE };
const siteUrl = inject('siteUrl');
let grid: EmbeddedGrid;
let running: RunningServer;
// As node-chrome and node-firefox images: one node per browser, each its own display.
const firefox = (await firefoxSupport()).geckodriver !== undefined;

beforeAll(async () => {
  const browsers = firefox ? (['chrome', 'firefox'] as const) : (['chrome'] as const);
  // docker-selenium's own default VNC password; the server answers it in the tunnel.
  grid = await startHubAndNodes({
    // Nodes whose operator runs the browsers in selenium-flow's sandbox and says so (a stock image
    // does not: its browsers are never watched, grid-offers.test.ts).
    dockerSelenium: { browsers, vncPassword: DOCKER_SELENIUM_VNC_PASSWORD, lockedWindow: true },
    loopbackPorts: [FIXTURE_PORTS],
  });
  running = await startServer(
    { ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN, GRID_VNC_PASSWORD: DOCKER_SELENIUM_VNC_PASSWORD },
    grid.url,
  );
}, 180_000);

afterAll(async () => {
  await rest(running?.url ?? '', `/admin/api/workspaces/${WORKSPACE}/control`, { who: 'Kelly' }, admin).catch(
    () => undefined,
  );
  await rest(running?.url ?? '', '/browser/end-browser', {}, agent).catch(() => undefined);
  await running?.close();
  await grid?.stop();
});

/** The distinct colours of the screen's top-left, read through the live tunnel: 1 is an empty desktop. */
async function screenColours(path: string): Promise<number> {
  const viewer = await RfbClient.open(running.url.replace(/^http/, 'ws') + path);
  try {
    await viewer.handshake();
    return await viewer.colours(0, 0, Math.min(640, viewer.width), Math.min(400, viewer.height));
  } finally {
    viewer.close();
  }
}

function messageOf(answer: { body: Record<string, unknown> }): string {
  return (answer.body.error as { message: string }).message;
}

async function control(method: 'POST' | 'DELETE'): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${running.url}/admin/api/workspaces/${WORKSPACE}/control`, {
    method,
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ who: 'Kelly' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('a docker-selenium-style node', () => {
  it('advertises its own VNC screen, one session, without any capability of ours', async () => {
    const status = await fetchGridStatus(grid.url);
    expect(status.nodes).toHaveLength(firefox ? 2 : 1);
    for (const node of status.nodes ?? []) {
      expect(node.maxSessions).toBe(Number(WATCHABLE_NODE_ENV.SE_NODE_MAX_SESSIONS));
      const stereotype = node.slots?.[0]?.stereotype ?? {};
      expect(stereotype['se:vncEnabled']).toBe(true);
      expect(typeof stereotype['se:noVncPort']).toBe('number');
      expect(stereotype['selenium-flow:liveView']).toBeUndefined();
      // Its VNC asks docker-selenium's password (VNC Authentication only): the server, not a viewer, answers it.
      const direct = await RfbClient.open(`ws://127.0.0.1:${String(stereotype['se:noVncPort'])}`);
      await expect(direct.handshake()).rejects.toThrow(/offered security types 2, not None/);
      direct.close();
    }
  });

  it('runs the browser headed on the node display', async () => {
    const opened = await rest(running.url, '/browser/open-session', {}, agent);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const agentString = await rest(
      running.url,
      '/browser/execute-script',
      { script: 'return navigator.userAgent' },
      agent,
    );
    expect(String(agentString.body.result)).toMatch(/Chrome\//);
    expect(String(agentString.body.result)).not.toMatch(/Headless/);
    const live = await rest(running.url, `/admin/api/workspaces/${WORKSPACE}/live`, undefined, admin);
    expect(live.body).toEqual({
      browser: true,
      watchable: true,
      grid_live_view: true,
      window: { width: 1280, height: 900 },
    });
  });

  it('shows the browser through the live tunnel: the screen read is not one colour', async () => {
    expect((await rest(running.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, agent)).status).toBe(200);
    const minted = await rest(running.url, `/admin/api/workspaces/${WORKSPACE}/live-ticket`, { who: 'Kelly' }, admin);
    expect(minted.status).toBe(200);
    expect(await screenColours(String(minted.body.path))).toBeGreaterThan(2);
  });

  it('holds Control: acting calls are refused with 409, reads answer, and the hand-back ends await_control', async () => {
    const taken = await control('POST');
    expect(taken.body.state).toBe('held');
    const refused = await rest(running.url, '/browser/navigate', { url: `${siteUrl}/welcome.html` }, agent);
    expect(refused.status).toBe(409);
    expect(messageOf(refused)).toMatch(/^Kelly has control of this browser since \d\d:\d\d UTC\. Call await_control/);
    expect((await rest(running.url, '/browser/open-session', {}, agent)).status).toBe(409);
    expect((await rest(running.url, '/browser/extract', {}, agent)).status).toBe(200);
    const waiting = rest(running.url, '/browser/await-control', {}, agent);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const back = await control('DELETE');
    expect(back.status).toBe(200);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ handed_back: true, who: 'Kelly' });
    expect((await rest(running.url, '/browser/navigate', { url: `${siteUrl}/welcome.html` }, agent)).status).toBe(200);
  });

  it.runIf(firefox)('runs Firefox headed on its node display too, and shows it through the tunnel', async () => {
    const fox = { authorization: `Bearer ${TOKEN}`, 'x-workspace': 'on-docker-firefox' };
    try {
      const opened = await rest(running.url, '/browser/open-session', { browser: 'firefox' }, fox);
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      // Headed on the display (1920 px wide); headless Firefox reports a screen of its own, 1366 px.
      const screen = await rest(running.url, '/browser/execute-script', { script: 'return screen.width' }, fox);
      expect(screen.body).toMatchObject({ result: 1920 });
      await rest(running.url, '/browser/navigate', { url: `${siteUrl}/table.html` }, fox);
      const minted = await rest(
        running.url,
        '/admin/api/workspaces/on-docker-firefox/live-ticket',
        { who: 'Kelly' },
        admin,
      );
      expect(minted.status).toBe(200);
      expect(await screenColours(String(minted.body.path))).toBeGreaterThan(2);
    } finally {
      await rest(running.url, '/browser/end-browser', {}, fox);
    }
  });
});
