import { LIVE_VIEW_CAPABILITY, LOCKED_WINDOW_CAPABILITY } from '../grid/capabilities.js';
import { liveViewToml, type LiveView } from './displays.js';
import type { Launch } from './launch.js';
import { CHROMEDRIVER, FIREFOX, GECKODRIVERS } from './paths.js';
import { isExecutable } from './requirements.js';

export function gridToml(
  maxSessions: number,
  browsers: NodeBrowsers,
  hubUrl?: string,
  views: readonly LiveView[] = [],
): string {
  // With watchable slots beside them, the headless ones say `liveView: false`: a request asking
  // true then matches only a watchable slot, and one asking false only a headless slot.
  const stereotype = JSON.stringify({
    browserName: 'chrome',
    'goog:chromeOptions': { binary: browsers.chromium },
    ...(views.length > 0 ? { [LIVE_VIEW_CAPABILITY]: false } : {}),
    ...lockedWindow(browsers),
  });
  // Selenium Manager and driver detection would reach for the internet or pick up a stray driver.
  // Without override-max-sessions the Grid silently caps max-sessions at the number of CPU cores.
  // The node's own max-sessions caps both browsers together: maxSessions browsers at once, of either kind.
  return [
    '[node]',
    'detect-drivers = false',
    'selenium-manager = false',
    'enable-managed-downloads = true',
    `max-sessions = ${maxSessions + views.length}`,
    'override-max-sessions = true',
    // A node behind a hub hands out the hub's address (BiDi, VNC), not its own.
    ...(hubUrl ? [`grid-url = "${hubUrl}"`] : []),
    '',
    '[[node.driver-configuration]]',
    'display-name = "Chromium"',
    `webdriver-executable = "${CHROMEDRIVER}"`,
    `max-sessions = ${maxSessions}`,
    `stereotype = '${stereotype}'`,
    '',
    ...(browsers.firefox
      ? firefoxToml(
          maxSessions,
          browsers,
          browsers.firefox,
          views.some((v) => v.browser === 'firefox'),
        )
      : []),
    ...views.flatMap((view, i) => liveViewToml(view, i, lockedWindow(browsers))),
  ].join('\n');
}

/** Headless Firefox slots; `liveView: false` beside a watchable Firefox, as the headless Chromium ones. */
function firefoxToml(
  maxSessions: number,
  browsers: NodeBrowsers,
  firefox: { binary: string; geckodriver: string },
  steered: boolean,
): string[] {
  const stereotype = JSON.stringify({
    browserName: 'firefox',
    'moz:firefoxOptions': { binary: firefox.binary },
    ...(steered ? { [LIVE_VIEW_CAPABILITY]: false } : {}),
    ...lockedWindow(browsers),
  });
  return [
    '[[node.driver-configuration]]',
    'display-name = "Firefox"',
    `webdriver-executable = "${firefox.geckodriver}"`,
    `max-sessions = ${maxSessions}`,
    `stereotype = '${stereotype}'`,
    '',
  ];
}

/** The router's credentials go in a config file only the Grid's user reads, not on a command line any user can list. */
export function routerToml(credentials: { username: string; password: string }): string {
  return ['[router]', `username = "${credentials.username}"`, `password = "${credentials.password}"`, ''].join('\n');
}

/** The browsers one node offers: the binaries its driver configurations start. */
export interface NodeBrowsers {
  chromium: string;
  /** each runs in its own sandbox with selenium-flow's policies (sandbox.ts): its slots say their window is locked */
  locked?: true;
  /** undefined when firefox-esr or geckodriver is missing */
  firefox?: { binary: string; geckodriver: string };
}

/** geckodriver's path when firefox-esr and geckodriver are both here; else the sentence naming what to install. */
export async function firefoxSupport(): Promise<Pick<Launch, 'geckodriver' | 'firefoxMissing'>> {
  const geckodriver = (
    await Promise.all(GECKODRIVERS.map(async (p) => ((await isExecutable(p)) ? p : undefined)))
  ).find((p) => p !== undefined);
  const missing = [
    ...((await isExecutable(FIREFOX)) ? [] : ['firefox-esr (apt-get install -y firefox-esr)']),
    ...(geckodriver ? [] : ['geckodriver (cargo install --locked --root /usr/local geckodriver)']),
  ];
  if (missing.length === 0) {
    return { geckodriver, firefoxMissing: undefined };
  }
  return {
    geckodriver: undefined,
    firefoxMissing: `This Grid has no Firefox: install ${missing.join(' and ')}, or run npm run setup, then restart.`,
  };
}

/** What a slot's stereotype says of its window: locked where its browsers run sandboxed. */
export function lockedWindow(browsers: NodeBrowsers): Record<string, true> {
  return browsers.locked ? { [LOCKED_WINDOW_CAPABILITY]: true } : {};
}
