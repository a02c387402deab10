/** The browsers selenium-flow drives, as open_session, DEFAULT_BROWSER and the answers spell them. */
export const BROWSER_KINDS = ['chrome', 'firefox'] as const;
export type BrowserKind = (typeof BROWSER_KINDS)[number];

/**
 * The custom capability that steers a browser to a watchable slot (true) or away from one
 * (false). A Grid whose stereotypes lack it matches any value (extension capabilities are
 * compared only when the stereotype names them), so it is safe to send to every Grid.
 */
export const LIVE_VIEW_CAPABILITY = 'selenium-flow:liveView';

/**
 * The Grid's managed downloads: a node started with them on names this in every slot's
 * stereotype and in each session it starts; a stock node (the Grid's own default) does not.
 */
export const MANAGED_DOWNLOADS = 'se:downloadsEnabled';

/** Whether a browser has managed downloads, by the capabilities its session answered. */
export function hasManagedDownloads(capabilities: Record<string, unknown> | undefined): boolean {
  return capabilities?.[MANAGED_DOWNLOADS] === true;
}

/**
 * Where a browser's WebDriver BiDi is, by the capabilities its session answered: its own
 * websocket (`webSocketUrl`, Firefox's), else its DevTools endpoint (`se:cdp`, Chromium's, which
 * a BiDi mapper in this process speaks BiDi over); undefined when the Grid announced neither
 * (a node with BiDi and CDP proxying off).
 */
export function bidiRouteOf(
  capabilities: Record<string, unknown>,
): { announced: string; via: 'webSocketUrl' | 'cdp' } | undefined {
  const { webSocketUrl } = capabilities;
  if (typeof webSocketUrl === 'string' && webSocketUrl !== '') {
    return { announced: webSocketUrl, via: 'webSocketUrl' };
  }
  const devtools = devtoolsOf(capabilities);
  return devtools === undefined ? undefined : { announced: devtools, via: 'cdp' };
}

/** Chromium's DevTools endpoint as its session announced it (`se:cdp`); undefined for none. */
export function devtoolsOf(capabilities: Record<string, unknown>): string | undefined {
  const devtools = capabilities['se:cdp'];
  // Firefox's DevTools endpoint, where a Grid announces one, is not Chromium's protocol.
  return typeof devtools === 'string' && devtools !== '' && capabilities.browserName !== 'firefox'
    ? devtools
    : undefined;
}

/**
 * A slot's stereotype says its browser's window is locked (`true`): the browser runs in a sandbox
 * with selenium-flow's policies, so a person at its window reaches the page and not the machine.
 * Only such a slot is watchable (docs/security.md); the embedded Grid marks its sandboxed slots.
 */
export const LOCKED_WINDOW_CAPABILITY = 'selenium-flow:lockedWindow';

export interface WindowSize {
  width: number;
  height: number;
}

// These flags keep headless Chromium quiet on a closed network (without them it floods
// refused connections) and inside containers (no /dev/shm).
const CHROME_ARGS = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * What sends a browser's every connection through the fence at `proxy` (host:port), the server's
 * own for a Grid it did not start: loopback too (Chromium otherwise bypasses any proxy for it,
 * Firefox unless told to hijack it), WebRTC only through the proxy (a page's STUN otherwise
 * reaches any UDP port), no QUIC or HTTP/3 (UDP), no DNS of the browser's own. The same settings
 * the embedded Grid's wrappers force (embedded-grid/browser-wrappers.ts); here they come from
 * the capabilities alone, which no agent or page sets.
 */
function chromiumThroughFence(proxy: string): string[] {
  return [
    `--proxy-server=http://${proxy}`,
    '--proxy-bypass-list=<-loopback>',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
  ];
}

function firefoxThroughFence(proxy: string): Record<string, string | number | boolean> {
  const at = proxy.lastIndexOf(':');
  const host = proxy.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(proxy.slice(at + 1));
  return {
    'network.proxy.type': 1,
    'network.proxy.http': host,
    'network.proxy.http_port': port,
    'network.proxy.ssl': host,
    'network.proxy.ssl_port': port,
    'network.proxy.share_proxy_settings': false,
    'network.proxy.socks': '',
    'network.proxy.socks_port': 0,
    'network.proxy.no_proxies_on': '',
    'network.proxy.allow_hijacking_localhost': true,
    'network.proxy.failover_direct': false,
    'network.proxy.autoconfig_url': '',
    'media.peerconnection.ice.proxy_only': true,
    'media.peerconnection.ice.proxy_only_if_behind_proxy': true,
    'network.http.http3.enable': false,
    'network.webtransport.enabled': false,
    'network.trr.mode': 5,
    'network.dns.disablePrefetch': true,
  };
}

/**
 * The capabilities every new browser gets. Nobody answers a browser prompt, so none may be
 * raised: password-save bubbles, leak checks, download prompts and notification prompts are
 * off. Page dialogs are the exception a caller must see: "ignore" keeps the next command
 * from silently dismissing them.
 *
 * `headed` only where the slot it lands on has a display a person watches (grid/offers.ts): a
 * headless browser draws nothing there, and a headed one on a node without a display does not start.
 * `downloads` only where a slot offers managed downloads. `proxy`: the fence every connection goes through.
 */
export function browserCapabilities(
  kind: BrowserKind,
  window: WindowSize,
  options: { sandbox?: boolean; headed?: boolean; bidiAtCreation?: boolean; downloads?: boolean; proxy?: string } = {},
): Record<string, unknown> {
  const headed = options.headed === true;
  const common = {
    // Asked only where a slot offers them (grid/offers.ts): a Grid matches no stock slot to it and
    // queues the request until it gives up.
    ...(options.downloads === true ? { [MANAGED_DOWNLOADS]: true } : {}),
    unhandledPromptBehavior: 'ignore',
  };
  if (kind === 'firefox') {
    return {
      ...common,
      // BiDi (the monitor: network capture, the pages a person visits) is asked at creation or
      // never; Firefox speaks it itself.
      webSocketUrl: true,
      browserName: 'firefox',
      'moz:firefoxOptions': {
        args: [...(headed ? [] : ['-headless']), `--width=${window.width}`, `--height=${window.height}`],
        prefs: {
          'signon.rememberSignons': false,
          'signon.management.page.breach-alerts.enabled': false,
          'browser.download.useDownloadDir': true,
          'browser.download.folderList': 2,
          'browser.download.always_ask_before_handling_new_types': false,
          'permissions.default.desktop-notification': 2,
          ...(options.proxy === undefined ? {} : firefoxThroughFence(options.proxy)),
        },
      },
    };
  }
  return {
    ...common,
    // Asked here, chromedriver starts its BiDi mapper in every new browser, ~200 ms of each open;
    // unasked, the mapper runs in the server when first wanted (live/monitor/bidi-over-cdp.ts). Replicas
    // ask: a body captured through one is read through another, from the one BiDi session.
    ...(options.bidiAtCreation === true ? { webSocketUrl: true } : {}),
    browserName: 'chrome',
    'goog:chromeOptions': {
      // Chromium's sandbox is what keeps a compromised renderer off the node's files; only a node
      // that runs Chromium as root (or without user namespaces) needs it off.
      args: [
        ...(headed ? [] : ['--headless=new']),
        ...CHROME_ARGS,
        ...(options.sandbox === false ? ['--no-sandbox'] : []),
        `--window-size=${window.width},${window.height}`,
        // Left to itself, Chromium opens 10 px into the screen; the live view shows the window from the corner.
        ...(headed ? ['--window-position=0,0'] : []),
        ...(options.proxy === undefined ? [] : chromiumThroughFence(options.proxy)),
      ],
      prefs: {
        credentials_enable_service: false,
        'profile.password_manager_leak_detection': false,
        'download.prompt_for_download': false,
        'profile.default_content_setting_values.notifications': 2,
      },
    },
  };
}
