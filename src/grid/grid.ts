import type { Agent } from 'node:http';
import { z } from 'zod';
import type { Session, WebDriver } from 'selenium-webdriver';
import type { Executor } from 'selenium-webdriver/http/index.js';
import { selenium, seleniumHttp } from '../browser/webdriver.js';
import { FIREFOX_FULL_SCREENSHOT } from '../browser/commands.js';
import { BadRequest, GridUnavailable } from '../errors.js';
import { countBrowser, type SlotCount } from '../ops/metrics.js';
import { gridAgent, gridRequest } from './fetch.js';
import { fetchGridStatus, readGridStatus, slotCapacity } from './status.js';
import { GridOffers, type Offers } from './offers.js';
import {
  bidiRouteOf,
  browserCapabilities,
  devtoolsOf,
  LIVE_VIEW_CAPABILITY,
  MANAGED_DOWNLOADS,
  type BrowserKind,
  type WindowSize,
} from './capabilities.js';
import { browserNotStarted, translateGridError } from './failures.js';
import { newSession, startOnTheTab } from './new-session.js';
import { sessionRunning } from './session-lookup.js';

/** Where the Grid's URL and its credentials are handled; re-exported for the callers that came before. */
export { gridFetch, splitCredentials, withoutCredentials } from './fetch.js';

export interface OpenedBrowser {
  gridId: string;
  kind: BrowserKind;
  version: string;
  /** The capabilities an attached driver must know (it cannot ask the Grid for them). */
  capabilities: Record<string, unknown>;
}

/**
 * A browser's BiDi: its own websocket, or its DevTools endpoint with a mapper in this process
 * (live/monitor/bidi-over-cdp.ts).
 */
export interface BidiEndpoint {
  url: string;
  via: 'webSocketUrl' | 'cdp';
}

/** WebDriver's own bounds, set on every new browser: a session keeps them, so every reattached driver has them too. */
export interface SessionTimeouts {
  scriptMs: number;
  pageLoadMs: number;
}

const KEPT_CAPABILITIES = [
  'browserName',
  'browserVersion',
  'platformName',
  'webSocketUrl',
  MANAGED_DOWNLOADS,
  'se:cdp',
  'se:vnc',
];

/** prefer: a watchable slot when one is free; off: never one (a test's, or a Grid kept for watched work). */
export type LiveViewChoice = 'prefer' | 'off';

/**
 * The Selenium Grid, as the server sees it: open, attach to, and end browsers. Attaching is
 * local object construction (no Grid round trip), which is what lets any replica serve any
 * call without holding a browser.
 */
export class Grid {
  /** The Grid's base URL, with its credentials as userinfo when it has some: never print it. */
  readonly url: string;
  private client: Executor | undefined;
  /** The keep-alive connections every request of a browser's goes over (grid/fetch.ts). */
  private readonly agent: Agent;
  /** What the slots offer, from /status read behind the calls (grid/offers.ts). */
  readonly offers: GridOffers;

  /**
   * `sandbox: false` asks Chromium to run without its sandbox (`--no-sandbox`), for nodes that
   * cannot start it. `bidiAtCreation`: every Chromium asks `webSocketUrl` (capabilities.ts).
   * `proxy`: the fence (host:port) every browser's connections go through (capabilities.ts).
   */
  constructor(
    url: string,
    private readonly options: {
      sandbox?: boolean;
      timeouts?: SessionTimeouts;
      liveView?: LiveViewChoice;
      bidiAtCreation?: boolean;
      proxy?: string;
    } = {},
  ) {
    this.url = url.replace(/\/+$/, '');
    this.agent = gridAgent(this.url);
    this.offers = new GridOffers(() => fetchGridStatus(this.url, this.agent));
  }

  /** Made at the first browser, not at boot: selenium-webdriver loads with it (browser/webdriver.ts). */
  private get executor(): Executor {
    if (!this.client) {
      const { Executor, HttpClient } = seleniumHttp();
      // The client sends the URL's userinfo as Basic auth.
      const executor = new Executor(new HttpClient(this.url, this.agent));
      executor.defineCommand('sendDevToolsCommand', 'POST', '/session/:sessionId/goog/cdp/execute');
      executor.defineCommand(FIREFOX_FULL_SCREENSHOT, 'GET', '/session/:sessionId/moz/screenshot/full');
      this.client = executor;
    }
    return this.client;
  }

  /**
   * What a new browser is asked for, exactly: the bench's raw script creates its sessions with
   * the same, so the comparison holds everything but our own work equal.
   */
  async capabilitiesFor(kind: BrowserKind, window: WindowSize): Promise<Record<string, unknown>> {
    return this.sessionCapabilities(kind, window, await this.offers.get().catch(() => undefined));
  }

  private sessionCapabilities(
    kind: BrowserKind,
    window: WindowSize,
    offers: Offers | undefined,
  ): Record<string, unknown> {
    const given = this.options.timeouts;
    const timeouts = given && { script: given.scriptMs, pageLoad: given.pageLoadMs };
    const steer = this.liveViewAsked(kind, offers);
    return {
      ...browserCapabilities(kind, window, {
        sandbox: this.options.sandbox ?? true,
        headed: headedOn(kind, offers, steer),
        bidiAtCreation: this.options.bidiAtCreation === true,
        downloads: offers?.downloads.has(kind) === true,
        proxy: this.options.proxy,
      }),
      ...(timeouts ? { timeouts } : {}),
      ...steer,
    };
  }

  async open(kind: BrowserKind, window: WindowSize): Promise<OpenedBrowser> {
    const offers = await this.checkOffers(kind);
    const asked = this.sessionCapabilities(kind, window, offers);
    let session: Session;
    try {
      session = await newSession(this.executor, asked);
    } catch (err) {
      this.offers.changed();
      throw browserNotStarted(err, kind, offers?.browsers) ?? translateGridError(err, true);
    }
    this.offers.changed({
      kind,
      watchable: asked[LIVE_VIEW_CAPABILITY] === true,
      downloads: asked[MANAGED_DOWNLOADS] === true,
    });
    countBrowser('opened');
    const answered = session.getCapabilities();
    const kept: Record<string, unknown> = {};
    for (const key of KEPT_CAPABILITIES) {
      const value: unknown = answered.get(key);
      if (value !== undefined && value !== null) {
        kept[key] = value;
      }
    }
    this.offers.learned(kind, bidiRouteOf(kept) !== undefined);
    if (kind === 'chrome') {
      await startOnTheTab(this.attach(session.getId(), kept)).catch(() => undefined);
    }
    return { gridId: session.getId(), kind, version: String(answered.get('browserVersion') ?? ''), capabilities: kept };
  }

  /**
   * Refuses at once a browser no node offers: the Grid itself would queue the request until its
   * own timeout (minutes). A Grid with no node up yet may be scaling from zero, so it is asked.
   */
  private async checkOffers(kind: BrowserKind): Promise<Offers | undefined> {
    const read = await this.offers.get().catch(() => undefined);
    // Whether the watchable slot is free decides where a browser runs: on a stale reading, one
    // another process took is asked for and queued (a 503 after GRID_SLOT_WAIT), and one freed
    // since is missed (the browser runs headless, and nobody can watch it).
    const offers =
      this.options.liveView === 'prefer' && read?.steered.has(kind)
        ? await this.offers.get(true).catch(() => read)
        : read;
    const offered = offers?.browsers;
    if (offered && offered.size > 0 && !offered.has(kind)) {
      const names = [...offered].sort().join(', ');
      // The embedded Grid offers Firefox only where firefox-esr and geckodriver are installed.
      const install =
        kind === 'firefox'
          ? ' (the embedded Grid: install firefox-esr and geckodriver with npm run setup, then restart)'
          : '';
      throw new BadRequest(
        `This Grid has no ${kind} browser (it offers: ${names}); pass browser: "${[...offered].sort()[0] ?? 'chrome'}", or add a ${kind} node to the Grid${install}.`,
      );
    }
    return offers;
  }

  /**
   * On a Grid that steers (watchable slots beside headless ones), a request says which it
   * wants: a watchable slot only while one is free (the Grid would queue it otherwise), so
   * ordinary work never waits for the one display. Other Grids get nothing extra.
   */
  private liveViewAsked(kind: BrowserKind, offers: Offers | undefined): Record<string, boolean> {
    // Unread offers (a fresh process whose first /status read failed, as under load): with the
    // live view not preferred, a request that said nothing could land on a watchable slot and run headed
    // (no print, slow screenshots). Saying false is safe anywhere: a Grid whose slots do not
    // name the capability does not compare it.
    if (!offers && this.options.liveView !== 'prefer') {
      return { [LIVE_VIEW_CAPABILITY]: false };
    }
    if (!offers?.steered.has(kind)) {
      return {};
    }
    return { [LIVE_VIEW_CAPABILITY]: this.options.liveView === 'prefer' && offers.watchableFree.has(kind) };
  }

  /** The browser names the Grid's nodes that are up offer (their slots' stereotypes), read now. */
  async offeredBrowsers(): Promise<Set<string>> {
    return (await this.offers.refresh()).browsers;
  }

  /** Whether some slot can be watched ('yes'), only has VNC without a locked window ('unlocked'), or neither. */
  async liveViewOffered(): Promise<'yes' | 'unlocked' | 'no'> {
    const offers = await this.offers.refresh();
    return offers.watchable.size > 0 ? 'yes' : offers.unlocked.size > 0 ? 'unlocked' : 'no';
  }

  attach(gridId: string, capabilities: Record<string, unknown>): WebDriver {
    const { Capabilities, Session, WebDriver } = selenium();
    return new WebDriver(new Session(gridId, new Capabilities(capabilities)), this.executor);
  }

  /**
   * Where a browser's WebDriver BiDi is (capabilities.ts), on this Grid's own address and
   * credentials, since a Grid behind a proxy announces the address it sees itself at.
   * Undefined when its session announced neither.
   */
  bidiAddress(capabilities: Record<string, unknown>): BidiEndpoint | undefined {
    const route = bidiRouteOf(capabilities);
    return route && { url: this.websocketHere(route.announced), via: route.via };
  }

  /** Chromium's DevTools endpoint (capabilities.ts) on this Grid's own address; undefined for none. */
  devtoolsAddress(capabilities: Record<string, unknown>): string | undefined {
    const announced = devtoolsOf(capabilities);
    return announced && this.websocketHere(announced);
  }

  private websocketHere(announced: string): string {
    const ours = new URL(this.url);
    ours.protocol = ours.protocol === 'https:' ? 'wss:' : 'ws:';
    ours.pathname = new URL(announced).pathname;
    return ours.toString();
  }

  async end(gridId: string): Promise<void> {
    const { status } = await gridRequest(`${this.url}/session/${encodeURIComponent(gridId)}`, 'DELETE', this.agent);
    const ok = status >= 200 && status < 300;
    if (!ok && status !== 404) {
      throw new GridUnavailable(`The Grid refused to end the browser (HTTP ${status}); try again.`);
    }
    if (ok) {
      countBrowser('ended');
      this.offers.changed();
    }
  }

  /** Free and used browser slots of the nodes that are up, from /status (which touches no session). */
  async slotCount(): Promise<SlotCount | undefined> {
    const status = await readGridStatus(this.url, this.agent);
    if (!status.reachable) {
      return undefined;
    }
    const { free, used } = slotCapacity(status.nodes);
    return { free, used };
  }

  /**
   * Whether the Grid still runs this browser, asked without touching it: the Grid's GraphQL
   * session lookup is answered from the Grid's own table of sessions and never reaches the
   * browser, so it does not count as use and a browser nobody uses still idles out on the
   * Grid's session timeout. For watching a browser a person holds (isAlive resets that timer).
   */
  async isRunning(gridId: string): Promise<boolean> {
    return sessionRunning(this.url, gridId);
  }

  /**
   * A cheap liveness probe; it also resets the node's idle timer. "no such window" is a browser
   * whose tab its page closed, alive with its other tabs and sign-ins: read as gone, it ended.
   */
  async isAlive(gridId: string): Promise<boolean> {
    const { status, json } = await gridRequest(
      `${this.url}/session/${encodeURIComponent(gridId)}/window`,
      'GET',
      this.agent,
    );
    return (status >= 200 && status < 300) || webDriverError.safeParse(json).data?.value.error === 'no such window';
  }

  /**
   * Whether the Grid answers its status. Not its `ready` flag: that is false while every slot
   * is busy, and a replica whose browsers are all in use must not be taken out of its load
   * balancer (it still serves every call on them).
   */
  async isReachable(): Promise<boolean> {
    try {
      await fetchGridStatus(this.url, this.agent);
      return true;
    } catch {
      return false;
    }
  }
}

/** A W3C WebDriver error answer, as far as isAlive reads it. */
const webDriverError = z.object({ value: z.object({ error: z.string() }) });

/**
 * Headed where a person can watch: on a Grid that steers, exactly when the watchable slot is
 * asked for; elsewhere when every slot of the browser is a display of its own (grid/offers.ts).
 */
function headedOn(kind: BrowserKind, offers: Offers | undefined, steer: Record<string, boolean>): boolean {
  if (!offers) {
    return false;
  }
  if (offers.steered.has(kind)) {
    return steer[LIVE_VIEW_CAPABILITY] === true;
  }
  return offers.headed.has(kind);
}
