import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BROWSER_GROUP, type GridAccount } from './account.js';
import type { NodeBrowsers } from './config.js';
import type { Launch } from './launch.js';
import { CHROMIUM, CHROMIUM_POLICY_DIR, FIREFOX, FIREFOX_DISTRIBUTION, SETPRIV, SG } from './paths.js';
import { chromiumPolicy, firefoxPolicy } from './policies.js';
import { ANSWERS, BROWSER_ADDRESS_SH, REQUESTS } from './proxy-registrations.js';
import { sandboxedLauncher, type BrowserSandbox } from './sandbox.js';
import { shellWord } from './shell.js';

/*
 * What a node starts as its browsers: a shell wrapper per browser that forces the fence's proxy
 * on it, whatever a request asked, and under the Grid's account gives it the browser group.
 */

export async function nodeBrowsers(launch: Launch, workDir: string): Promise<NodeBrowsers> {
  const proxy =
    launch.proxyPort === undefined || launch.proxyClients === undefined
      ? undefined
      : { port: launch.proxyPort, clientsDir: launch.proxyClients };
  const chromium = await chromiumBinary(workDir, launch.account, proxy, launch.sandbox);
  const locked = launch.sandbox ? { locked: true as const } : {};
  if (launch.geckodriver === undefined) {
    return { chromium, ...locked };
  }
  return {
    chromium,
    ...locked,
    firefox: {
      binary: await firefoxBinary(workDir, launch.account, proxy, launch.sandbox),
      geckodriver: launch.geckodriver,
    },
  };
}

/**
 * Arguments no request may pass to Chromium: each could take it off the proxy (another proxy, a
 * PAC script, no proxy, a bypass list), let WebRTC or QUIC send UDP past it, or load an extension
 * (an extension's proxy setting outranks the command line).
 */
const CHROMIUM_DROPPED = [
  '--proxy*',
  '--no-proxy-server',
  '--winhttp-proxy-resolver',
  '--force-webrtc-ip-handling-policy*',
  '--webrtc-ip-handling-policy*',
  '--enable-quic',
  '--origin-to-force-quic-on*',
  '--load-extension*',
  '--disable-extensions-except*',
];

/** The proxy a browser must use, and where its wrapper asks for the browser's own address there. */
interface ProxyAddress {
  port: number;
  clientsDir: string;
}

/**
 * The fence's half in Chromium, appended after whatever the request asked (the proxy itself,
 * at the browser's own address, is appended by the wrapper): every connection through the proxy,
 * loopback included (Chromium otherwise bypasses any proxy for loopback), WebRTC only through the
 * proxy (TCP; a page's STUN otherwise reaches any UDP port), no QUIC (UDP, and WebTransport with it).
 */
function chromiumFence(): string[] {
  return [
    '--proxy-bypass-list=<-loopback>',
    // Chromium 156's switch (no "force-" prefix); checked with a UDP listener: 0 packets with it, 8 without.
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
  ];
}

/**
 * The fence's half in Firefox, appended to the user.js geckodriver wrote into the profile it
 * passes as `-profile` (a later line wins, so these outrank any pref a request sent). Locked in
 * all but name: nothing the node accepts sets prefs once Firefox runs.
 */
function firefoxFence(proxyPort: number): string[] {
  // network.proxy.http and .ssl, the browser's own address, are written by the wrapper after these.
  const prefs: [string, string | number | boolean][] = [
    ['network.proxy.type', 1],
    ['network.proxy.http_port', proxyPort],
    ['network.proxy.ssl_port', proxyPort],
    ['network.proxy.share_proxy_settings', false],
    ['network.proxy.socks', ''],
    ['network.proxy.socks_port', 0],
    ['network.proxy.no_proxies_on', ''],
    ['network.proxy.allow_hijacking_localhost', true],
    ['network.proxy.failover_direct', false],
    ['network.proxy.autoconfig_url', ''],
    ['media.peerconnection.ice.proxy_only', true],
    ['media.peerconnection.ice.proxy_only_if_behind_proxy', true],
    ['network.http.http3.enable', false],
    ['network.webtransport.enabled', false],
    ['network.trr.mode', 5],
    ['network.dns.disablePrefetch', true],
  ];
  return prefs.map(([name, value]) => `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});`);
}

/**
 * What the node starts as Chromium: a wrapper that forces the proxy (the fence that needs no
 * root). Under the Grid's account it also takes this Grid's browser group (its firewall's key) with sg,
 * and drops --no-sandbox: there Chromium's sandbox works, whatever a client asks. sg forks and
 * waits, and chromedriver ends a browser with a temporary profile by SIGKILL to the process it
 * started (sg): without a parent-death signal every quit left its Chromium running (60 of them
 * within one test run).
 */
async function chromiumBinary(
  workDir: string,
  account: GridAccount | undefined,
  proxy: ProxyAddress | undefined,
  sandbox: BrowserSandbox | undefined,
): Promise<string> {
  // BROWSER_FENCE=off: no proxy, nothing to hold it in place. In a sandbox Chromium keeps its own sandbox too.
  const dropped = [...(proxy === undefined ? [] : CHROMIUM_DROPPED), ...(account || sandbox ? ['--no-sandbox'] : [])];
  const binary = sandbox
    ? await sandboxedLauncher(join(workDir, 'chromium-sandboxed'), workDir, sandbox, {
        binary: CHROMIUM,
        profile: 'chromium',
        policy: {
          file: `${CHROMIUM_POLICY_DIR}/policies/managed/selenium-flow.json`,
          text: chromiumPolicy(proxy?.port),
        },
      })
    : CHROMIUM;
  return browserWrapper(join(workDir, 'chromium'), binary, account, {
    dropped,
    sandboxed: sandbox !== undefined,
    ...(proxy === undefined ? {} : { proxy, appended: chromiumFence() }),
  });
}

/** What the node starts as Firefox: the same wrapper, which writes the proxy prefs into its profile first. */
async function firefoxBinary(
  workDir: string,
  account: GridAccount | undefined,
  proxy: ProxyAddress | undefined,
  sandbox: BrowserSandbox | undefined,
): Promise<string> {
  const binary = sandbox
    ? await sandboxedLauncher(join(workDir, 'firefox-sandboxed'), workDir, sandbox, {
        binary: FIREFOX,
        profile: 'firefox',
        policy: { file: `${FIREFOX_DISTRIBUTION}/policies.json`, text: firefoxPolicy(proxy?.port) },
      })
    : FIREFOX;
  return browserWrapper(join(workDir, 'firefox'), binary, account, {
    dropped: [],
    sandboxed: sandbox !== undefined,
    ...(proxy === undefined ? {} : { proxy, userJs: firefoxFence(proxy.port) }),
  });
}

async function browserWrapper(
  wrapper: string,
  binary: string,
  account: GridAccount | undefined,
  fence: { dropped: string[]; appended?: string[]; userJs?: string[]; proxy?: ProxyAddress; sandboxed?: boolean },
): Promise<string> {
  const drop = fence.dropped.length > 0 ? [`    ${fence.dropped.join('|')}) ;;`] : [];
  // Firefox: no `-profile <dir>` means no user.js to fence it with, so it does not start at all.
  const userJs = fence.userJs
    ? [
        'profile=',
        'prev=',
        'for a in "$@"; do [ "$prev" = -profile ] && profile=$a; prev=$a; done',
        // geckodriver asks `--version` first: that opens no page.
        'if [ "$#" = 1 ] && { [ "$1" = --version ] || [ "$1" = -v ]; }; then',
        '  :',
        'elif [ -z "$profile" ] || [ ! -d "$profile" ]; then',
        '  echo "selenium-flow: no -profile directory to write the proxy prefs into; refusing to start Firefox unfenced" >&2',
        '  exit 1',
        'else',
        `  cat >> "$profile/user.js" <<'SELENIUM_FLOW_FENCE'`,
        ...fence.userJs,
        'SELENIUM_FLOW_FENCE',
        `  printf 'user_pref("network.proxy.http", "%s");\\nuser_pref("network.proxy.ssl", "%s");\\n' "$sf_addr" "$sf_addr" >> "$profile/user.js"`,
        'fi',
      ]
    : [];
  const filter = [
    'for a in "$@"; do',
    '  shift',
    '  case "$a" in',
    ...drop,
    '    *) set -- "$@" "$a" ;;',
    '  esac',
    'done',
    ...(fence.appended ?? []).map((a) => `set -- "$@" ${shellWord(a)}`),
    ...(fence.proxy && !fence.userJs ? [`set -- "$@" "--proxy-server=http://$sf_addr:${fence.proxy.port}"`] : []),
  ];
  // As root: each argument single-quoted for sg's `sh -c`; a quote inside one becomes '"'"' (no backslash survives dash's quoting).
  const launch = account
    ? [
        `sq="'"`,
        `dq='"'`,
        "q=''",
        'for a in "$@"; do',
        `  q="$q '$(printf '%s' "$a" | sed "s/$sq/$sq$dq$sq$dq$sq/g")'"`,
        'done',
        `exec ${SG} ${account.browsers?.name ?? BROWSER_GROUP} -c "exec ${SETPRIV} --pdeathsig KILL -- ${binary}$q"`,
      ]
    : [`exec ${binary} "$@"`];
  // The sandbox's policies (sandboxedLauncher) name the proxy at this browser's own address; the
  // launcher takes SF_ADDR out of the environment again before the browser starts.
  const handed = fence.proxy && fence.sandboxed ? ['SF_ADDR=$sf_addr', 'export SF_ADDR'] : [];
  const own = fence.proxy ? [...ownAddress(fence.proxy.clientsDir), ...handed] : [];
  const script = ['#!/bin/sh', ...own, ...userJs, ...filter, ...launch, ''].join('\n');
  await writeFile(wrapper, script, { mode: 0o755 });
  await chmod(wrapper, 0o755);
  return wrapper;
}

/**
 * The wrapper's registration with the proxy (proxy.ts): a file named by its pid (the browser's,
 * or sg's, which lives as long) in the wrappers' own REQUESTS directory, then a bounded wait for
 * the proxy's answer in ANSWERS, which only the proxy writes, once it listens on the browser's
 * own address. No address, no browser: it never falls back to a shared one.
 */
export function ownAddress(clientsDir: string): string[] {
  const refuse = (why: string) =>
    `    echo "selenium-flow: ${why}; refusing to start the browser unfenced" >&2; exit 1`;
  return [
    'sf_pid=$$',
    BROWSER_ADDRESS_SH,
    // geckodriver's `--version` opens no page: it needs no address.
    'if ! { [ "$#" = 1 ] && { [ "$1" = --version ] || [ "$1" = -v ]; }; }; then',
    `  sf_ask=${shellWord(`${clientsDir}/${REQUESTS}`)}`,
    `  sf_answer=${shellWord(`${clientsDir}/${ANSWERS}`)}`,
    `  : > "$sf_ask/$sf_pid" || {`,
    refuse("cannot ask the fence's proxy for an address"),
    '  }',
    '  sf_wait=0',
    '  until [ -e "$sf_answer/$sf_pid.ready" ]; do',
    `    if [ -e "$sf_answer/$sf_pid.failed" ] || [ "$sf_wait" -ge ${ADDRESS_WAIT_POLLS} ]; then`,
    refuse("the fence's proxy gave it no address of its own"),
    '    fi',
    '    sf_wait=$((sf_wait + 1))',
    '    sleep 0.02',
    '  done',
    'fi',
  ];
}

/** 30 s of 20 ms polls: the proxy answers in a few ms, but a loaded host may starve it for a while. */
const ADDRESS_WAIT_POLLS = 1_500;
