import { LIVE_VIEW_CAPABILITY } from './capabilities.js';
import type { GridStatusAnswer } from './status.js';

/**
 * What the Grid's slots offer, per browser name, read from its /status: the one place that
 * decides, before a browser is asked for, whether it runs headed and where it may be watched.
 */
export interface Offers {
  /** every browser some node that is up offers */
  browsers: Set<string>;
  /** the browsers some slot of which names the live-view capability (ours: an embedded Grid's) */
  steered: Set<string>;
  /** the browsers some slot of which advertises VNC (se:vncEnabled) */
  watchable: Set<string>;
  /** the steered browsers with a watchable slot free now */
  watchableFree: Set<string>;
  /**
   * The browsers every slot of which is a screen of its own (se:vncEnabled, one browser per
   * display): a browser asked for here lands on a display a person can watch, so it runs headed.
   */
  headed: Set<string>;
  /** the browsers some slot of which shares its node's one display with other sessions */
  sharedScreen: Set<string>;
}

type WireNode = NonNullable<GridStatusAnswer['nodes']>[number];
type WireSlot = NonNullable<WireNode['slots']>[number];

/** A node's slots that advertise VNC, by the display they show (a node without a local address has one). */
function screenOf(slot: WireSlot): string | undefined {
  const stereotype = slot.stereotype;
  if (stereotype?.['se:vncEnabled'] !== true) {
    return undefined;
  }
  const address = stereotype['se:vncLocalAddress'];
  return typeof address === 'string' ? address : 'the node display';
}

/**
 * Whether a watchable slot shows one browser at a time. A node running one session at once
 * (docker-selenium's SE_NODE_MAX_SESSIONS=1) does; a node running several shares its display
 * among them unless each slot names a display of its own (the embedded Grid's watchable slots).
 */
function ownScreen(node: WireNode, slot: WireSlot): boolean {
  const slots = node.slots ?? [];
  if ((node.maxSessions ?? slots.length) <= 1) {
    return true;
  }
  const screen = screenOf(slot);
  return slots.filter((other) => screenOf(other) === screen).length <= 1 && screen !== 'the node display';
}

function isUp(node: WireNode): boolean {
  return node.availability === undefined || node.availability === 'UP';
}

export function offersOf(status: GridStatusAnswer): Offers {
  const offers: Offers = {
    browsers: new Set(),
    steered: new Set(),
    watchable: new Set(),
    watchableFree: new Set(),
    headed: new Set(),
    sharedScreen: new Set(),
  };
  const headless = new Set<string>();
  for (const node of (status.nodes ?? []).filter(isUp)) {
    for (const slot of node.slots ?? []) {
      const name = slot.stereotype?.browserName;
      if (!name) {
        continue;
      }
      offers.browsers.add(name);
      const live = slot.stereotype?.[LIVE_VIEW_CAPABILITY];
      if (typeof live === 'boolean') {
        offers.steered.add(name);
      }
      if (live === true && !slot.session) {
        offers.watchableFree.add(name);
      }
      if (screenOf(slot) === undefined) {
        headless.add(name);
        continue;
      }
      offers.watchable.add(name);
      if (ownScreen(node, slot)) {
        offers.headed.add(name);
      } else {
        offers.sharedScreen.add(name);
      }
    }
  }
  // A browser the Grid may place on a headless slot or a shared screen stays headless: the Grid,
  // not we, picks the slot, and a headed browser on a node without a display does not start.
  for (const name of [...headless, ...offers.sharedScreen]) {
    offers.headed.delete(name);
  }
  return offers;
}

/** How long one reading answers opens before it is read again (behind the answer, never in front of it). */
const FRESH_MS = 2_000;

/**
 * The Grid's offers, cached: the first browser waits for one /status read, every later one is
 * answered from the last reading while a stale reading is refreshed behind it, so opening a
 * browser costs no Grid round trip beyond creating the session (issue #31). `changed()` marks a
 * slot taken or freed; the next read then happens at once, still behind the answer.
 */
export class GridOffers {
  private last: { offers: Offers; at: number } | undefined;
  private reading: Promise<Offers> | undefined;

  constructor(
    private readonly read: () => Promise<GridStatusAnswer>,
    private readonly freshMs = FRESH_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The offers; throws only when there has never been a reading and the Grid does not answer. */
  async get(): Promise<Offers> {
    const last = this.last;
    if (!last) {
      return this.refresh();
    }
    if (this.now() - last.at >= this.freshMs) {
      void this.refresh().catch(() => undefined);
    }
    return last.offers;
  }

  /** Reads /status now; concurrent callers share one read. */
  refresh(): Promise<Offers> {
    this.reading ??= this.read()
      .then((status) => {
        const offers = offersOf(status);
        this.last = { offers, at: this.now() };
        return offers;
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  /**
   * A slot was taken or freed: the next get answers from the last reading and reads again behind
   * it. A watchable slot just taken (`watchableTaken`) is no longer free in that reading either,
   * so the next browser is not sent to queue for it.
   */
  changed(watchableTaken?: string): void {
    if (this.last) {
      this.last.at = -Infinity;
      if (watchableTaken !== undefined) {
        this.last.offers.watchableFree.delete(watchableTaken);
      }
    }
  }
}

/**
 * How many browsers at once the node of this browser runs on the one display it shows, when it
 * shares that display (a VNC screen shows them all, one on top of another); undefined when the
 * browser has a screen of its own, or the Grid does not list it.
 */
export function screenSharedBy(status: GridStatusAnswer, gridId: string): number | undefined {
  for (const node of status.nodes ?? []) {
    const slot = (node.slots ?? []).find((s) => s.session?.sessionId === gridId);
    if (slot) {
      return screenOf(slot) !== undefined && !ownScreen(node, slot)
        ? (node.maxSessions ?? node.slots?.length)
        : undefined;
    }
  }
  return undefined;
}
