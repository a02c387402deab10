import { afterAll, describe, expect, inject, it } from 'vitest';
import { Grid, type OpenedBrowser } from '../../src/grid/grid.js';
import { openBidi } from '../../src/live/monitor/monitoring.js';
import { BidiMonitors, BidiUnavailable, type MonitoredBrowser, type Reason } from '../../src/live/monitor/monitor.js';
import { testBrowser } from '../helpers/server.js';

/** A reason that writes down what it hears, and whether it was told the connection was lost. */
function listening(events: string[]): Reason & { heard: string[]; lost: number } {
  const reason = {
    heard: [] as string[],
    lost: 0,
    events,
    onEvent(_event: string, params: unknown) {
      const url =
        (params as { request?: { url?: string }; url?: string }).request?.url ?? (params as { url?: string }).url;
      reason.heard.push(String(url));
    },
    onLost() {
      reason.lost += 1;
    },
  };
  return reason;
}

/** Waits on what a reason heard: events arrive on their own socket, after the command that caused them. */
async function heard(reason: { heard: string[] }, fragment: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!reason.heard.some((url) => url.includes(fragment))) {
    if (Date.now() > until) {
      throw new Error(`never heard ${fragment}; heard ${reason.heard.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the BiDi monitor on the real Grid', () => {
  const siteUrl = inject('siteUrl');
  const grid = new Grid(inject('gridUrl'), { sandbox: true });
  const monitors = new BidiMonitors({ connect: (endpoint) => openBidi(endpoint, 1_000_000, 10_000) });
  const opened: OpenedBrowser[] = [];

  async function browser(): Promise<MonitoredBrowser & { opened: OpenedBrowser }> {
    const one = await grid.open(testBrowser(), { width: 800, height: 600 });
    opened.push(one);
    return { gridId: one.gridId, bidiAddress: grid.bidiAddress(one.capabilities), opened: one };
  }

  afterAll(async () => {
    await monitors.close();
    await Promise.all(opened.map((one) => grid.end(one.gridId).catch(() => undefined)));
  });

  it('opens one connection shared by two reasons, and closes it when the last lets go', async () => {
    const target = await browser();
    // Firefox speaks BiDi on its own websocket; Chromium's is a mapper here, over its DevTools endpoint.
    const via = testBrowser() === 'firefox' ? { via: 'webSocketUrl', path: 'bidi' } : { via: 'cdp', path: 'cdp' };
    expect(target.bidiAddress?.via).toBe(via.via);
    expect(target.bidiAddress?.url).toMatch(new RegExp(`^ws://.*/session/[^/]+/se/${via.path}$`));
    expect(monitors.state(target.gridId)).toEqual({ open: false, reasons: [] });

    const capture = listening(['network.beforeRequestSent']);
    const control = listening(['browsingContext.load']);
    await monitors.want(target, 'capture', capture);
    await monitors.want(target, 'control', control);
    expect(monitors.state(target.gridId)).toEqual({ open: true, reasons: ['capture', 'control'] });
    expect(monitors.openCount).toBe(1);

    const driver = grid.attach(target.gridId, target.opened.capabilities);
    await driver.get(`${siteUrl}/welcome.html`);
    await heard(capture, '/welcome.html');
    await heard(control, '/welcome.html');

    await monitors.letGo(target.gridId, 'capture');
    expect(monitors.state(target.gridId)).toEqual({ open: true, reasons: ['control'] });
    // The reason that let go hears nothing more; the one that holds still does.
    const before = capture.heard.length;
    await driver.get(`${siteUrl}/table.html`);
    await heard(control, '/table.html');
    expect(capture.heard).toHaveLength(before);

    await monitors.letGo(target.gridId, 'control');
    await monitors.letGo(target.gridId, 'control');
    expect(monitors.state(target.gridId)).toEqual({ open: false, reasons: [] });
    expect(monitors.openCount).toBe(0);
    expect(capture.lost + control.lost).toBe(0);
  });

  it('says in one sentence that a browser without BiDi has none, and holds nothing open', async () => {
    const noBidi = { gridId: 'no-bidi', bidiAddress: grid.bidiAddress({ browserName: 'chrome' }) };
    const refused = await monitors.want(noBidi, 'capture', listening([])).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BidiUnavailable);
    expect((refused as BidiUnavailable).status).toBe(409);
    expect((refused as Error).message).toBe(
      'This browser has no WebDriver BiDi connection (its session announced neither webSocketUrl nor se:cdp), so network capture is unavailable; every other tool still works, and a browser on a Grid that announces webSocketUrl (Firefox) or se:cdp (Chromium) has it.',
    );
    const unreachable = {
      gridId: 'gone-grid',
      bidiAddress: { url: 'ws://127.0.0.1:9/session/x/se/bidi', via: 'webSocketUrl' as const },
    };
    const failed = await monitors.want(unreachable, 'control', listening([])).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(BidiUnavailable);
    expect((failed as Error).message).toContain('following the pages a person visits is unavailable');
    const noDevtools = {
      gridId: 'gone-cdp',
      bidiAddress: { url: 'ws://127.0.0.1:9/session/x/se/cdp', via: 'cdp' as const },
    };
    const refusedCdp = await monitors.want(noDevtools, 'capture', listening([])).catch((err: unknown) => err);
    expect(refusedCdp).toBeInstanceOf(BidiUnavailable);
    expect((refusedCdp as Error).message).toContain('its websocket did not open');
    expect(monitors.openCount).toBe(0);
  });

  it('fails a command in flight when its connection closes, rather than holding it', async () => {
    const one = await browser();
    const connection = await openBidi(one.bidiAddress!, 1_000_000, 10_000);
    const tree = (await connection.send('browsingContext.getTree', { maxDepth: 0 })) as {
      contexts: { context: string }[];
    };
    const context = tree.contexts[0]?.context;
    expect(context).toBeTypeOf('string');
    // A script that never settles: only the connection's end can answer it.
    const pending = connection.send('script.evaluate', {
      expression: 'new Promise(() => {})',
      awaitPromise: true,
      target: { context },
    });
    const settled = pending.then(
      () => 'answered',
      () => 'failed',
    );
    await connection.close();
    expect(await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('held'), 5_000))])).toBe(
      'failed',
    );
    await expect(connection.send('browsingContext.getTree', { maxDepth: 0 })).rejects.toThrow();
  });

  it('lets go of a browser ended while held: its reasons are told, its connection and watch end', async () => {
    const watched = new BidiMonitors({ connect: (endpoint) => openBidi(endpoint, 1_000_000, 10_000), watchMs: 200 });
    try {
      const target = await browser();
      const capture = listening(['network.beforeRequestSent']);
      capture.stillWanted = () => grid.isAlive(target.gridId);
      await watched.want(target, 'capture', capture);
      expect(watched.state(target.gridId).open).toBe(true);
      await grid.end(target.gridId);
      const until = Date.now() + 10_000;
      while (watched.state(target.gridId).open && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(watched.state(target.gridId)).toEqual({ open: false, reasons: [] });
      expect(capture.lost).toBe(1);
      expect(watched.openCount).toBe(0);
    } finally {
      await watched.close();
    }
  });
});
