import { bidiRouteOf, LIVE_VIEW_CAPABILITY, LOCKED_WINDOW_CAPABILITY, MANAGED_DOWNLOADS } from './capabilities.js';
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
  /** the browsers some slot of which advertises VNC (se:vncEnabled) and locks its window (LOCKED_WINDOW_CAPABILITY) */
  watchable: Set<string>;
  /** the browsers some slot of which advertises VNC without locking its window: never watched */
  unlocked: Set<string>;
  /** the steered browsers with a watchable slot free now */
  watchableFree: Set<string>;
  /**
   * The browsers every slot of which is a screen of its own (se:vncEnabled, one browser per
   * display): a browser asked for here lands on a display a person can watch, so it runs headed.
   */
  headed: Set<string>;
  /** the browsers some slot of which shares its node's one display with other sessions */
  sharedScreen: Set<string>;
  /**
   * The browsers a request asks managed downloads for: every slot offers them (the request
   * matches any), or a slot that offers them is free now (it goes there rather than where none
   * are). Asked where no slot offers them, the Grid would queue the request until it gave up.
   */
  downloads: Set<string>;
  /** per browser, what its slots offer, for doctor and /info */
  slots: Map<string, SlotFeatures>;
}

/** What the slots of one browser offer, counted from the stereotypes of the nodes that are up. */
export interface SlotFeatures {
  slots: number;
  /** slots whose stereotype says se:downloadsEnabled (the node runs with managed downloads on) */
  managedDownloads: number;
  /** slots whose stereotype says se:vncEnabled and locks the browser's window: a person can watch those */
  vnc: number;
  /** slots with VNC that do not lock the browser's window: never watched */
  vncUnlocked: number;
  /**
   * true when a browser of this kind running on the Grid now announced a BiDi route
   * (webSocketUrl, or the Grid's DevTools proxy): a stereotype does not say, only a session does
   */
  bidiSeen: boolean;
}

type WireNode = NonNullable<GridStatusAnswer['nodes']>[number];
type WireSlot = NonNullable<WireNode['slots']>[number];

function locksWindow(slot: WireSlot): boolean {
  return slot.stereotype?.[LOCKED_WINDOW_CAPABILITY] === true;
}

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

/** A slot without a session, on a node not already running as many as it may. */
function isFree(node: WireNode, slot: WireSlot): boolean {
  const slots = node.slots ?? [];
  const busy = slots.filter((s) => s.session).length;
  return !slot.session && busy < (node.maxSessions ?? slots.length);
}

export function offersOf(status: GridStatusAnswer): Offers {
  const offers: Offers = {
    browsers: new Set(),
    steered: new Set(),
    watchable: new Set(),
    unlocked: new Set(),
    watchableFree: new Set(),
    headed: new Set(),
    sharedScreen: new Set(),
    downloads: new Set(),
    slots: new Map(),
  };
  const headless = new Set<string>();
  const downloadsFree = new Set<string>();
  for (const node of (status.nodes ?? []).filter(isUp)) {
    for (const slot of node.slots ?? []) {
      const name = slot.stereotype?.browserName;
      if (!name) {
        continue;
      }
      offers.browsers.add(name);
      const counted = offers.slots.get(name) ?? {
        slots: 0,
        managedDownloads: 0,
        vnc: 0,
        vncUnlocked: 0,
        bidiSeen: false,
      };
      offers.slots.set(name, counted);
      counted.slots += 1;
      if (slot.stereotype?.[MANAGED_DOWNLOADS] === true) {
        counted.managedDownloads += 1;
        if (isFree(node, slot)) {
          downloadsFree.add(name);
        }
      }
      if (slot.session?.capabilities && bidiRouteOf(slot.session.capabilities)) {
        counted.bidiSeen = true;
      }
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
      if (locksWindow(slot)) {
        offers.watchable.add(name);
        counted.vnc += 1;
      } else {
        offers.unlocked.add(name);
        counted.vncUnlocked += 1;
      }
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
  for (const [name, counted] of offers.slots) {
    if (counted.managedDownloads === counted.slots || downloadsFree.has(name)) {
      offers.downloads.add(name);
    }
  }
  return offers;
}

/** What the Grid offers one browser (GridOffers.features): counts of its slots, and BiDi as learned. */
export interface BrowserFeatures {
  /** the slots of the nodes that are up that offer this browser */
  slots: number;
  /** of them, those with managed downloads (se:downloadsEnabled in the stereotype) */
  managedDownloads: number;
  /** of them, those a person can watch (se:vncEnabled, and a locked window) */
  vnc: number;
  /** of them, those with VNC that do not lock the browser's window (never watched) */
  vncUnlocked: number;
  /** whether its browsers announce a BiDi route (webSocketUrl, or se:cdp for Chromium); null: none has run yet */
  bidi: boolean | null;
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
  /** Per browser, whether the last one this process opened announced a BiDi route: what ours get. */
  private readonly bidi = new Map<string, boolean>();

  constructor(
    private readonly read: () => Promise<GridStatusAnswer>,
    private readonly freshMs = FRESH_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The offers (read again first when `fresh` and stale); throws only when never read and the Grid is down. */
  async get(fresh = false): Promise<Offers> {
    const last = this.last;
    if (!last || (fresh && this.now() - last.at >= this.freshMs)) {
      return this.refresh();
    }
    if (this.now() - last.at >= this.freshMs) {
      void this.refresh().catch(() => undefined);
    }
    return last.offers;
  }

  /**
   * What the Grid offers each browser, read now: managed downloads and VNC from its slots'
   * stereotypes; BiDi from a browser's answer (a stereotype does not say): the last one this
   * process opened, else one running on the Grid now, else unknown.
   */
  async features(): Promise<Map<string, BrowserFeatures>> {
    const offers = await this.refresh();
    const features = new Map<string, BrowserFeatures>();
    for (const [name, counted] of [...offers.slots].sort(([a], [b]) => a.localeCompare(b))) {
      const { slots, managedDownloads, vnc, vncUnlocked, bidiSeen } = counted;
      features.set(name, {
        slots,
        managedDownloads,
        vnc,
        vncUnlocked,
        bidi: this.bidi.get(name) ?? (bidiSeen ? true : null),
      });
    }
    return features;
  }

  /** A browser of `kind` opened, and its session announced a BiDi route or not. */
  learned(kind: string, bidi: boolean): void {
    this.bidi.set(kind, bidi);
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
   * it. A browser just opened on a watchable slot (`taken.watchable`), or on one of the few with
   * managed downloads (`taken.downloads`), took what may have been the last such slot free, so
   * the next browser is not sent to queue for one until the Grid is read again.
   */
  changed(taken?: { kind: string; watchable?: boolean; downloads?: boolean }): void {
    const offers = this.last?.offers;
    if (!this.last || !offers) {
      return;
    }
    this.last.at = -Infinity;
    if (taken?.watchable === true) {
      offers.watchableFree.delete(taken.kind);
    }
    const counted = offers.slots.get(taken?.kind ?? '');
    if (taken?.downloads === true && counted && counted.managedDownloads < counted.slots) {
      offers.downloads.delete(taken.kind);
    }
  }
}

/**
 * The slot running this browser, as a person watching it cares: `sharedBy`, how many browsers at
 * once its node shows on the one display it has, when it shares it (a VNC screen shows them all,
 * one on top of another); `locked`, whether it locks the browser's window. Undefined when the Grid
 * does not list the browser.
 */
export function watchedSlot(
  status: GridStatusAnswer,
  gridId: string,
): { sharedBy: number | undefined; locked: boolean } | undefined {
  for (const node of status.nodes ?? []) {
    const slot = (node.slots ?? []).find((s) => s.session?.sessionId === gridId);
    if (slot) {
      const shared = screenOf(slot) !== undefined && !ownScreen(node, slot);
      return { sharedBy: shared ? (node.maxSessions ?? node.slots?.length) : undefined, locked: locksWindow(slot) };
    }
  }
  return undefined;
}
