import { describe, expect, it } from 'vitest';
import { browserCapabilities } from '../../src/grid/capabilities.js';
import { GridOffers, offersOf, screenSharedBy } from '../../src/grid/offers.js';
import { sharedScreen } from '../../src/live/service.js';
import type { GridStatusAnswer } from '../../src/grid/status.js';

type Node = NonNullable<GridStatusAnswer['nodes']>[number];

// Stereotypes as the 4.48 jar reports them: a docker-selenium node (SE_START_XVFB/SE_START_VNC
// true) adds se:vncEnabled and se:noVncPort itself; an embedded watchable slot names its own display.
function node(maxSessions: number, stereotype: Record<string, unknown>, slots = maxSessions): Node {
  return {
    availability: 'UP',
    maxSessions,
    slots: Array.from({ length: slots }, () => ({
      stereotype: { platformName: 'linux', ...stereotype },
      session: null,
    })),
  };
}
const VNC = { 'se:vncEnabled': true, 'se:noVncPort': 7900 };
const status = (...nodes: Node[]): GridStatusAnswer => ({ ready: true, nodes });

describe('what a Grid offers for watching', () => {
  it('runs a browser headed where every slot of it is a one-session node with VNC', () => {
    const offers = offersOf(
      status(node(1, { browserName: 'chrome', ...VNC }), node(1, { browserName: 'firefox', ...VNC })),
    );
    expect([...offers.headed].sort()).toEqual(['chrome', 'firefox']);
    expect(offers.sharedScreen.size).toBe(0);
    expect([...offers.watchable].sort()).toEqual(['chrome', 'firefox']);
  });

  it('keeps headless where no display is advertised', () => {
    const offers = offersOf(status(node(4, { browserName: 'chrome' })));
    expect(offers.headed.size).toBe(0);
    expect(offers.watchable.size).toBe(0);
  });

  it('calls a display that several sessions of one node share a shared screen, and keeps it headless', () => {
    const offers = offersOf(status(node(4, { browserName: 'chrome', ...VNC })));
    expect(offers.headed.has('chrome')).toBe(false);
    expect(offers.sharedScreen.has('chrome')).toBe(true);
    expect(offers.watchable.has('chrome')).toBe(true);
  });

  it('keeps headless a browser the Grid may also place on a node without a display', () => {
    const offers = offersOf(status(node(1, { browserName: 'chrome', ...VNC }), node(2, { browserName: 'chrome' })));
    expect(offers.headed.has('chrome')).toBe(false);
  });

  it('counts a slot naming a display of its own as its own screen on a many-session node (the embedded Grid)', () => {
    const embedded: Node = {
      availability: 'UP',
      maxSessions: 5,
      slots: [
        { stereotype: { browserName: 'chrome', 'selenium-flow:liveView': false }, session: null },
        {
          stereotype: {
            browserName: 'chrome',
            'selenium-flow:liveView': true,
            ...VNC,
            'se:vncLocalAddress': 'ws://127.0.0.1:7999',
          },
          session: null,
        },
      ],
    };
    const offers = offersOf(status(embedded));
    expect(offers.sharedScreen.size).toBe(0);
    expect(offers.steered.has('chrome')).toBe(true);
    expect(offers.watchableFree.has('chrome')).toBe(true);
  });

  it('leaves out nodes that are down', () => {
    const down = { ...node(1, { browserName: 'firefox' }), availability: 'DOWN' };
    expect(offersOf(status(down)).browsers.size).toBe(0);
  });
});

describe('the cached reading', () => {
  it('reads once for concurrent callers, then answers from the reading and refreshes a stale one behind it', async () => {
    let reads = 0;
    let clock = 0;
    let answer = status(node(1, { browserName: 'chrome', ...VNC }));
    const offers = new GridOffers(
      async () => {
        reads += 1;
        return answer;
      },
      1000,
      () => clock,
    );
    const [a, b] = await Promise.all([offers.get(), offers.get()]);
    expect(reads).toBe(1);
    expect(a.headed.has('chrome')).toBe(true);
    expect(b).toBe(a);
    clock = 500;
    await offers.get();
    expect(reads).toBe(1);
    answer = status(node(1, { browserName: 'firefox' }));
    clock = 1500;
    // stale: answered from the last reading, while the next one is read behind it
    expect((await offers.get()).browsers.has('chrome')).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    expect((await offers.get()).browsers.has('firefox')).toBe(true);
    offers.changed();
    await offers.get();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(3);
  });

  it('fails only when there was never a reading', async () => {
    const offers = new GridOffers(async () => {
      throw new Error('down');
    });
    await expect(offers.get()).rejects.toThrow('down');
  });
});

describe('the headless flag follows the decision', () => {
  const window = { width: 800, height: 600 };
  const args = (caps: Record<string, unknown>, key: string) => (caps[key] as { args: string[] }).args;
  it('drops --headless for a headed Chromium and -headless for a headed Firefox, and keeps them otherwise', () => {
    expect(args(browserCapabilities('chrome', window), 'goog:chromeOptions')).toContain('--headless=new');
    expect(args(browserCapabilities('chrome', window, { headed: true }), 'goog:chromeOptions')).not.toContain(
      '--headless=new',
    );
    // A person watches a headed Chromium from the screen's corner (the live view shows the window from there).
    expect(args(browserCapabilities('chrome', window, { headed: true }), 'goog:chromeOptions')).toContain(
      '--window-position=0,0',
    );
    expect(args(browserCapabilities('chrome', window), 'goog:chromeOptions')).not.toContain('--window-position=0,0');
    expect(args(browserCapabilities('firefox', window), 'moz:firefoxOptions')).toContain('-headless');
    expect(args(browserCapabilities('firefox', window, { headed: true }), 'moz:firefoxOptions')).not.toContain(
      '-headless',
    );
  });
});

describe('a watchable slot just taken', () => {
  it('is no longer free in the reading the next browser is answered from', async () => {
    const watchable: Node = {
      availability: 'UP',
      maxSessions: 2,
      slots: [
        { stereotype: { browserName: 'chrome', 'selenium-flow:liveView': false }, session: null },
        {
          stereotype: { browserName: 'chrome', 'selenium-flow:liveView': true, ...VNC, 'se:vncLocalAddress': 'ws://x' },
          session: null,
        },
      ],
    };
    const offers = new GridOffers(async () => status(watchable), 60_000);
    expect((await offers.get()).watchableFree.has('chrome')).toBe(true);
    offers.changed('chrome');
    expect((await offers.get()).watchableFree.has('chrome')).toBe(false);
  });
});

describe('a browser on a shared display', () => {
  const running = (n: Node, gridId: string): Node => ({
    ...n,
    slots: (n.slots ?? []).map((slot, i) => (i === 0 ? { ...slot, session: { sessionId: gridId } } : slot)),
  });
  it('is named with how many browsers its node shows on one screen, and the sentence says the fix', () => {
    const status_ = status(running(node(4, { browserName: 'chrome', ...VNC }), 'shared-1'));
    expect(screenSharedBy(status_, 'shared-1')).toBe(4);
    expect(sharedScreen(4)).toMatch(/up to 4 browsers on one display.*SE_NODE_MAX_SESSIONS=1/);
  });
  it('is not a browser on a one-session node, a headless slot, or one the Grid does not list', () => {
    const status_ = status(
      running(node(1, { browserName: 'chrome', ...VNC }), 'own-1'),
      running(node(4, { browserName: 'chrome' }), 'headless-1'),
    );
    expect(screenSharedBy(status_, 'own-1')).toBeUndefined();
    expect(screenSharedBy(status_, 'headless-1')).toBeUndefined();
    expect(screenSharedBy(status_, 'gone')).toBeUndefined();
  });
});
