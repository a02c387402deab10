import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LIVE_VIEW_CAPABILITY } from '../grid/capabilities.js';
import { liveViewToml, type LiveView } from './displays.js';
import { BROWSER_GROUP, type GridAccount, type Launch } from './launch.js';
import { CHROMEDRIVER, CHROMIUM, FIREFOX, GECKODRIVERS, SETPRIV, SG } from './paths.js';
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
          browsers.firefox,
          views.some((v) => v.browser === 'firefox'),
        )
      : []),
    ...views.flatMap((view, i) => liveViewToml(view, i)),
  ].join('\n');
}

/** Headless Firefox slots; `liveView: false` beside a watchable Firefox, as the headless Chromium ones. */
function firefoxToml(
  maxSessions: number,
  firefox: { binary: string; geckodriver: string },
  steered: boolean,
): string[] {
  const stereotype = JSON.stringify({
    browserName: 'firefox',
    'moz:firefoxOptions': { binary: firefox.binary },
    ...(steered ? { [LIVE_VIEW_CAPABILITY]: false } : {}),
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
  /** undefined when firefox-esr or geckodriver is missing */
  firefox?: { binary: string; geckodriver: string };
}

export async function nodeBrowsers(launch: Launch, workDir: string): Promise<NodeBrowsers> {
  const chromium = await chromiumBinary(workDir, launch.account);
  if (launch.geckodriver === undefined) {
    return { chromium };
  }
  return {
    chromium,
    firefox: { binary: await firefoxBinary(workDir, launch.account), geckodriver: launch.geckodriver },
  };
}

/**
 * What the node starts as Chromium. Under the Grid's account it is a wrapper that takes the
 * browser group (the firewall's key) with sg, and drops --no-sandbox: there Chromium's
 * sandbox works, whatever a client asks. sg forks and waits, and chromedriver ends a browser with
 * a temporary profile by SIGKILL to the process it started (sg): without a parent-death signal
 * every quit left its Chromium running (60 of them within one test run).
 */
async function chromiumBinary(workDir: string, account: GridAccount | undefined): Promise<string> {
  return account ? browserWrapper(join(workDir, 'chromium'), CHROMIUM, '--no-sandbox') : CHROMIUM;
}

/** What the node starts as Firefox: the same wrapper (the browser group, a parent-death signal). */
async function firefoxBinary(workDir: string, account: GridAccount | undefined): Promise<string> {
  return account ? browserWrapper(join(workDir, 'firefox'), FIREFOX) : FIREFOX;
}

async function browserWrapper(wrapper: string, binary: string, dropped?: string): Promise<string> {
  // Each argument is single-quoted for sg's `sh -c`; a quote inside one becomes '"'"' (no backslash survives dash's quoting).
  const script = [
    '#!/bin/sh',
    `sq="'"`,
    `dq='"'`,
    "q=''",
    'for a in "$@"; do',
    ...(dropped ? [`  [ "$a" = ${dropped} ] && continue`] : []),
    `  q="$q '$(printf '%s' "$a" | sed "s/$sq/$sq$dq$sq$dq$sq/g")'"`,
    'done',
    `exec ${SG} ${BROWSER_GROUP} -c "exec ${SETPRIV} --pdeathsig KILL -- ${binary}$q"`,
    '',
  ].join('\n');
  await writeFile(wrapper, script, { mode: 0o755 });
  await chmod(wrapper, 0o755);
  return wrapper;
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
