import { Agent } from 'node:http';
import type { Session, WebDriver } from 'selenium-webdriver';
import type { Executor } from 'selenium-webdriver/http/index.js';
import { selenium, seleniumHttp } from '../browser/webdriver.js';
import { FIREFOX_FULL_SCREENSHOT } from '../browser/commands.js';
import { BadRequest, GridUnavailable } from '../errors.js';
import { countBrowser, type SlotCount } from '../ops/metrics.js';
import { gridFetch } from './fetch.js';
import { fetchGridStatus, readGridStatus, slotCapacity } from './status.js';
import { GridOffers, type Offers } from './offers.js';
import { browserCapabilities, LIVE_VIEW_CAPABILITY, type BrowserKind, type WindowSize } from './capabilities.js';
import { browserNotStarted, translateGridError } from './failures.js';
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

/** A browser's BiDi: its own websocket, or its DevTools endpoint with a mapper in this process (live/bidi-over-cdp.ts). */
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
  'se:downloadsEnabled',
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
  private readonly sandbox: boolean;
  private readonly timeouts: SessionTimeouts | undefined;
  private readonly liveView: LiveViewChoice;
  private readonly bidiAtCreation: boolean;
  /** What the slots offer, from /status read behind the calls (grid/offers.ts). */
  readonly offers: GridOffers;

  /**
   * `sandbox: false` asks Chromium to run without its sandbox (`--no-sandbox`), for nodes that
   * cannot start it. `bidiAtCreation`: every Chromium asks `webSocketUrl` (capabilities.ts).
   */
  constructor(
    url: string,
    options: {
      sandbox?: boolean;
      timeouts?: SessionTimeouts;
      liveView?: LiveViewChoice;
      bidiAtCreation?: boolean;
    } = {},
  ) {
    this.url = url.replace(/\/+$/, '');
    this.sandbox = options.sandbox ?? true;
    this.timeouts = options.timeouts;
    this.liveView = options.liveView ?? 'off';
    this.bidiAtCreation = options.bidiAtCreation ?? false;
    this.offers = new GridOffers(() => fetchGridStatus(this.url));
  }

  /** Made at the first browser, not at boot: selenium-webdriver loads with it (browser/webdriver.ts). */
  private get executor(): Executor {
    if (!this.client) {
      const { Executor, HttpClient } = seleniumHttp();
      // One keep-alive agent for every browser: a fresh TCP connection per command costs more
      // than the command itself on a local Grid. The client sends the URL's userinfo as Basic auth.
      const executor = new Executor(new HttpClient(this.url, new Agent({ keepAlive: true, maxSockets: 64 })));
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
    const timeouts = this.timeouts && { script: this.timeouts.scriptMs, pageLoad: this.timeouts.pageLoadMs };
    const steer = this.liveViewAsked(kind, offers);
    return {
      ...browserCapabilities(kind, window, {
        sandbox: this.sandbox,
        headed: headedOn(kind, offers, steer),
        bidiAtCreation: this.bidiAtCreation,
      }),
      ...(timeouts ? { timeouts } : {}),
      ...steer,
    };
  }

  async open(kind: BrowserKind, window: WindowSize): Promise<OpenedBrowser> {
    const offers = await this.checkOffers(kind);
    const { Capabilities, WebDriver } = selenium();
    const asked = this.sessionCapabilities(kind, window, offers);
    const caps = new Capabilities(asked);
    let session: Session;
    try {
      // The new session's answer, or the Grid's refusal, arrives with the session (createSession
      // answers at once, a driver whose session is still a promise).
      session = await WebDriver.createSession(this.executor, caps).getSession();
    } catch (err) {
      this.offers.changed();
      throw browserNotStarted(err, kind, offers?.browsers) ?? translateGridError(err, true);
    }
    this.offers.changed(asked[LIVE_VIEW_CAPABILITY] === true ? kind : undefined);
    countBrowser('opened');
    const answered = session.getCapabilities();
    const kept: Record<string, unknown> = {};
    for (const key of KEPT_CAPABILITIES) {
      const value: unknown = answered.get(key);
      if (value !== undefined && value !== null) {
        kept[key] = value;
      }
    }
    return { gridId: session.getId(), kind, version: String(answered.get('browserVersion') ?? ''), capabilities: kept };
  }

  /**
   * Refuses at once a browser no node offers: the Grid itself would queue the request until its
   * own timeout (minutes). A Grid with no node up yet may be scaling from zero, so it is asked.
   */
  private async checkOffers(kind: BrowserKind): Promise<Offers | undefined> {
    const offers = await this.offers.get().catch(() => undefined);
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
    if (!offers?.steered.has(kind)) {
      return {};
    }
    return { [LIVE_VIEW_CAPABILITY]: this.liveView === 'prefer' && offers.watchableFree.has(kind) };
  }

  /** The browser names the Grid's nodes that are up offer (their slots' stereotypes), read now. */
  async offeredBrowsers(): Promise<Set<string>> {
    return (await this.offers.refresh()).browsers;
  }

  /** Whether any slot of the Grid can be watched (advertises se:vncEnabled), read now. */
  async hasLiveView(): Promise<boolean> {
    const offers = await this.offers.refresh();
    return offers.watchable.size > 0;
  }

  attach(gridId: string, capabilities: Record<string, unknown>): WebDriver {
    const { Capabilities, Session, WebDriver } = selenium();
    return new WebDriver(new Session(gridId, new Capabilities(capabilities)), this.executor);
  }

  /**
   * Where a browser's WebDriver BiDi is: the websocket its session announced (`webSocketUrl`:
   * Firefox's), else its DevTools endpoint (`se:cdp`: Chromium's, which a BiDi mapper in this
   * process speaks BiDi over). Either on this Grid's own address and credentials, since a Grid
   * behind a proxy announces the address it sees itself at. Undefined when it announced neither.
   */
  bidiAddress(capabilities: Record<string, unknown>): BidiEndpoint | undefined {
    const { webSocketUrl, browserName } = capabilities;
    const devtools = capabilities['se:cdp'];
    if (typeof webSocketUrl === 'string' && webSocketUrl !== '') {
      return { url: this.websocketHere(webSocketUrl), via: 'webSocketUrl' };
    }
    // Firefox's DevTools endpoint, where a Grid announces one, is not Chromium's protocol.
    if (typeof devtools === 'string' && devtools !== '' && browserName !== 'firefox') {
      return { url: this.websocketHere(devtools), via: 'cdp' };
    }
    return undefined;
  }

  private websocketHere(announced: string): string {
    const ours = new URL(this.url);
    ours.protocol = ours.protocol === 'https:' ? 'wss:' : 'ws:';
    ours.pathname = new URL(announced).pathname;
    return ours.toString();
  }

  async end(gridId: string): Promise<void> {
    const response = await gridFetch(`${this.url}/session/${encodeURIComponent(gridId)}`, { method: 'DELETE' });
    if (!response.ok && response.status !== 404) {
      throw new GridUnavailable(`The Grid refused to end the browser (HTTP ${response.status}); try again.`);
    }
    if (response.ok) {
      countBrowser('ended');
      this.offers.changed();
    }
  }

  /** Free and used browser slots of the nodes that are up, from /status (which touches no session). */
  async slotCount(): Promise<SlotCount | undefined> {
    const status = await readGridStatus(this.url);
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

  /** A cheap liveness probe; it also resets the node's idle timer. */
  async isAlive(gridId: string): Promise<boolean> {
    const response = await gridFetch(`${this.url}/session/${encodeURIComponent(gridId)}/window`, { method: 'GET' });
    return response.ok;
  }

  /**
   * Whether the Grid answers its status. Not its `ready` flag: that is false while every slot
   * is busy, and a replica whose browsers are all in use must not be taken out of its load
   * balancer (it still serves every call on them).
   */
  async isReachable(): Promise<boolean> {
    try {
      await fetchGridStatus(this.url);
      return true;
    } catch {
      return false;
    }
  }
}

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
