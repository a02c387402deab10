import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import WebSocket from 'ws';
import { LIVE_VIEW_CAPABILITY, LOCKED_WINDOW_CAPABILITY } from '../../src/grid/capabilities.js';
import { Grid, gridFetch } from '../../src/grid/grid.js';

const gridUrl = inject('gridUrl');
const opened: string[] = [];

afterAll(async () => {
  const grid = new Grid(gridUrl);
  await Promise.all(opened.map((id) => grid.end(id)));
});

/** The first bytes a websocket receives: a VNC server's greeting is its protocol version. */
function firstMessage(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('message', (data: Buffer) => {
      resolve(data.toString('latin1'));
      ws.close();
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`HTTP ${res.statusCode}`));
      ws.close();
    });
  });
}

describe('the shared Grid: four headless slots and one watchable, of each browser', () => {
  it('advertises one slot with se:vncEnabled per browser beside four that steer away from it', async () => {
    const status = (await (await gridFetch(`${gridUrl}/status`, { method: 'GET' })).json()) as {
      value: { nodes: { slots: { stereotype: Record<string, unknown> }[] }[] };
    };
    const slots = status.value.nodes.flatMap((n) => n.slots);
    for (const browser of ['chrome', 'firefox']) {
      const of = slots.filter((s) => s.stereotype.browserName === browser);
      expect(of.filter((s) => s.stereotype['se:vncEnabled'] === true)).toHaveLength(1);
      expect(of.filter((s) => s.stereotype[LIVE_VIEW_CAPABILITY] === false)).toHaveLength(4);
    }
    // each on a display of its own: one VNC server shows one screen
    const addresses = slots.map((s) => s.stereotype['se:vncLocalAddress']).filter(Boolean);
    expect(new Set(addresses).size).toBe(2);
    // each in a sandbox that locks its window (sandbox.ts): only such a slot is watched
    const watchable = slots.filter((s) => s.stereotype['se:vncEnabled'] === true);
    expect(watchable.every((s) => s.stereotype[LOCKED_WINDOW_CAPABILITY] === true)).toBe(true);
    expect(await new Grid(gridUrl).liveViewOffered()).toBe('yes');
  });

  it('opens a watchable browser when one is free, and its VNC greets through the Grid', async () => {
    const grid = new Grid(gridUrl, { liveView: 'prefer' });
    const browser = await grid.open('chrome', { width: 1280, height: 800 });
    opened.push(browser.gridId);
    const vnc = browser.capabilities['se:vnc'];
    expect(typeof vnc).toBe('string');
    expect(await firstMessage(vnc as string)).toBe('RFB 003.008\n');
    // Headed on its display: a headless browser would have nothing to show.
    const driver = grid.attach(browser.gridId, browser.capabilities);
    expect(await driver.executeScript('return navigator.userAgent')).not.toMatch(/Headless/);
  });

  it('keeps ordinary browsers off the watchable slot (liveView off, the default of a bare Grid)', async () => {
    const grid = new Grid(gridUrl);
    const browser = await grid.open('chrome', { width: 800, height: 600 });
    opened.push(browser.gridId);
    expect(browser.capabilities['se:vnc']).toBeUndefined();
  });
});

describe("the watchable slot's VNC ports", () => {
  it.runIf(process.getuid?.() === 0)('refuse a local account other than the Grid’s', async () => {
    const { execFile } = await import('node:child_process');
    const status = (await (await gridFetch(`${gridUrl}/status`, { method: 'GET' })).json()) as {
      value: { nodes: { slots: { stereotype: Record<string, unknown> }[] }[] };
    };
    const local = status.value.nodes.flatMap((n) => n.slots).find((s) => s.stereotype['se:vncLocalAddress']);
    const port = new URL(String(local?.stereotype['se:vncLocalAddress'])).port;
    const probe = `require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('open'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
    const { promisify } = await import('node:util');
    const { stdout } = await promisify(execFile)('setpriv', [
      '--reuid=nobody',
      '--regid=nogroup',
      '--clear-groups',
      process.execPath,
      '-e',
      probe,
    ]);
    const answer = stdout.trim();
    expect(answer).toMatch(/ECONNREFUSED|ECONNRESET/);
  });
});
