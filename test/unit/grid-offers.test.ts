import { describe, expect, it } from 'vitest';
import { browserCapabilities } from '../../src/grid/capabilities.js';
import { GridOffers, offersOf, watchedSlot } from '../../src/grid/offers.js';
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
/** A VNC slot whose node runs its browsers in selenium-flow's sandbox, and says so. */
const LOCKED = { ...VNC, 'selenium-flow:lockedWindow': true };
const status = (...nodes: Node[]): GridStatusAnswer => ({ ready: true, nodes });

describe('what a Grid offers for watching', () => {
  it('runs a browser headed where every slot of it is a one-session node with VNC', () => {
    const offers = offersOf(
      status(node(1, { browserName: 'chrome', ...LOCKED }), node(1, { browserName: 'firefox', ...LOCKED })),
    );
    expect([...offers.headed].sort()).toEqual(['chrome', 'firefox']);
    expect(offers.sharedScreen.size).toBe(0);
    expect([...offers.watchable].sort()).toEqual(['chrome', 'firefox']);
  });

  it('never offers for watching a VNC slot that does not lock its window (a stock docker-selenium node)', () => {
    const offers = offersOf(status(node(1, { browserName: 'chrome', ...VNC })));
    expect(offers.headed.has('chrome')).toBe(true);
    expect(offers.watchable.size).toBe(0);
    expect(offers.unlocked.has('chrome')).toBe(true);
  });

  it('keeps headless where no display is advertised', () => {
    const offers = offersOf(status(node(4, { browserName: 'chrome' })));
    expect(offers.headed.size).toBe(0);
    expect(offers.watchable.size).toBe(0);
  });

  it('calls a display that several sessions of one node share a shared screen, and keeps it headless', () => {
    const offers = offersOf(status(node(4, { browserName: 'chrome', ...LOCKED })));
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
  /** Offers fresh for 1 s on the test's clock, counting their reads of the status the test sets. */
  function clocked(first: ReturnType<typeof status>) {
    const grid = { reads: 0, clock: 0, answer: first };
    const read = async () => {
      grid.reads += 1;
      return grid.answer;
    };
    return { grid, offers: new GridOffers(read, 1000, () => grid.clock) };
  }

  it('reads once for concurrent callers, then answers from the reading and refreshes a stale one behind it', async () => {
    const { grid, offers } = clocked(status(node(1, { browserName: 'chrome', ...VNC })));
    const [a, b] = await Promise.all([offers.get(), offers.get()]);
    expect(grid.reads).toBe(1);
    expect(a.headed.has('chrome')).toBe(true);
    expect(b).toBe(a);
    grid.clock = 500;
    await offers.get();
    expect(grid.reads).toBe(1);
    grid.answer = status(node(1, { browserName: 'firefox' }));
    grid.clock = 1500;
    // stale: answered from the last reading, while the next one is read behind it
    expect((await offers.get()).browsers.has('chrome')).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(grid.reads).toBe(2);
    expect((await offers.get()).browsers.has('firefox')).toBe(true);
    offers.changed();
    await offers.get();
    await new Promise((resolve) => setImmediate(resolve));
    expect(grid.reads).toBe(3);
  });

  it('reads again before answering a caller that asks for a fresh reading, once the last is stale', async () => {
    const { grid, offers } = clocked(status(node(1, { browserName: 'chrome' })));
    await offers.get(true);
    grid.clock = 500;
    await offers.get(true);
    expect(grid.reads).toBe(1);
    grid.answer = status(node(1, { browserName: 'firefox' }));
    grid.clock = 1500;
    expect((await offers.get(true)).browsers.has('firefox')).toBe(true);
    expect(grid.reads).toBe(2);
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
    offers.changed({ kind: 'chrome', watchable: true });
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
    expect(watchedSlot(status_, 'shared-1')?.sharedBy).toBe(4);
    expect(sharedScreen(4)).toMatch(/up to 4 browsers on one display.*SE_NODE_MAX_SESSIONS=1/);
  });
  it('is not a browser on a one-session node, a headless slot, or one the Grid does not list', () => {
    const status_ = status(
      running(node(1, { browserName: 'chrome', ...VNC }), 'own-1'),
      running(node(4, { browserName: 'chrome' }), 'headless-1'),
    );
    expect(watchedSlot(status_, 'own-1')?.sharedBy).toBeUndefined();
    expect(watchedSlot(status_, 'headless-1')?.sharedBy).toBeUndefined();
    expect(watchedSlot(status_, 'gone')).toBeUndefined();
  });
});

describe('managed downloads', () => {
  const DOWNLOADS = { 'se:downloadsEnabled': true };
  // A node as `standalone` starts it by default: its stereotypes say nothing of downloads.
  const stock = node(4, { browserName: 'chrome' });

  it('asks for them nowhere on a stock Grid, so the request matches its slots', () => {
    const offers = offersOf(status(stock));
    expect(offers.downloads.size).toBe(0);
    expect(offers.slots.get('chrome')).toEqual({
      slots: 4,
      managedDownloads: 0,
      vnc: 0,
      vncUnlocked: 0,
      bidiSeen: false,
    });
    expect(browserCapabilities('chrome', { width: 800, height: 600 })).not.toHaveProperty('se:downloadsEnabled');
    expect(browserCapabilities('firefox', { width: 800, height: 600 })).not.toHaveProperty('se:downloadsEnabled');
    expect(browserCapabilities('chrome', { width: 800, height: 600 }, { downloads: true })).toMatchObject({
      'se:downloadsEnabled': true,
    });
  });

  it('asks for them where every slot offers them, busy or not', () => {
    const full = node(1, { browserName: 'chrome', ...DOWNLOADS });
    const busy = { ...full, slots: (full.slots ?? []).map((slot) => ({ ...slot, session: { sessionId: 'x' } })) };
    expect(offersOf(status(busy)).downloads.has('chrome')).toBe(true);
  });

  it('on a Grid where only some slots offer them, asks while one of those is free, then not', async () => {
    const some = node(1, { browserName: 'chrome', ...DOWNLOADS });
    const mixed = status(some, stock);
    expect(offersOf(mixed).downloads.has('chrome')).toBe(true);
    expect(offersOf(mixed).slots.get('chrome')).toMatchObject({ slots: 5, managedDownloads: 1 });
    // A node at its maxSessions has no free slot, whatever its other slots say.
    const taken: Node = {
      ...some,
      maxSessions: 1,
      slots: [...(some.slots ?? []), { stereotype: { browserName: 'firefox', ...DOWNLOADS }, session: null }].map(
        (slot, i) => (i === 0 ? { ...slot, session: { sessionId: 'x' } } : slot),
      ),
    };
    expect(offersOf(status(taken, stock)).downloads.has('chrome')).toBe(false);
    // The slot a browser was just sent to is not offered again before the Grid is read again.
    const cached = new GridOffers(async () => mixed, 60_000);
    expect((await cached.get()).downloads.has('chrome')).toBe(true);
    cached.changed({ kind: 'chrome', downloads: true });
    expect((await cached.get()).downloads.has('chrome')).toBe(false);
  });

  it('counts VNC slots, watched only where the window is locked, and BiDi only as a running browser announced it', () => {
    const running: Node = {
      ...node(2, { browserName: 'chrome', ...VNC }),
      slots: [
        {
          stereotype: { browserName: 'chrome', ...VNC },
          session: { sessionId: 'a', capabilities: { browserName: 'chrome', 'se:cdp': 'ws://grid/session/a/se/cdp' } },
        },
        { stereotype: { browserName: 'chrome' }, session: null },
      ],
    };
    expect(offersOf(status(running)).slots.get('chrome')).toEqual({
      slots: 2,
      managedDownloads: 0,
      vnc: 0,
      vncUnlocked: 1,
      bidiSeen: true,
    });
    const firefoxCdp: Node = {
      ...node(1, { browserName: 'firefox' }),
      slots: [
        {
          stereotype: { browserName: 'firefox' },
          session: { sessionId: 'b', capabilities: { browserName: 'firefox', 'se:cdp': 'ws://grid/session/b/se/cdp' } },
        },
      ],
    };
    expect(offersOf(status(firefoxCdp)).slots.get('firefox')?.bidiSeen).toBe(false);
  });
});
