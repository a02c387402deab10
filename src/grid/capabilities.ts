export type BrowserKind = 'chrome' | 'firefox';

/**
 * The custom capability that steers a browser to a watchable slot (true) or away from one
 * (false). A Grid whose stereotypes lack it matches any value (extension capabilities are
 * compared only when the stereotype names them), so it is safe to send to every Grid.
 */
export const LIVE_VIEW_CAPABILITY = 'selenium-flow:liveView';

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
 * The capabilities every new browser gets. Nobody answers a browser prompt, so none may be
 * raised: password-save bubbles, leak checks, download prompts and notification prompts are
 * off. Page dialogs are the exception a caller must see: "ignore" keeps the next command
 * from silently dismissing them.
 *
 * `headed` only where the slot it lands on has a display a person watches (grid/offers.ts): a
 * headless browser draws nothing there, and a headed one on a node without a display does not start.
 */
export function browserCapabilities(
  kind: BrowserKind,
  window: WindowSize,
  options: { sandbox?: boolean; headed?: boolean; bidiAtCreation?: boolean } = {},
): Record<string, unknown> {
  const headed = options.headed === true;
  const common = {
    'se:downloadsEnabled': true,
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
        },
      },
    };
  }
  return {
    ...common,
    // Asked here, chromedriver starts its BiDi mapper in every new browser, ~200 ms of each open;
    // unasked, the mapper runs in the server when first wanted (live/bidi-over-cdp.ts). Replicas
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
