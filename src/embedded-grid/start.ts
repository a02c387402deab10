import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserKind } from '../grid/capabilities.js';
import { fetchGridStatus } from '../grid/status.js';
import { poll } from '../poll.js';
import { gridToml, firefoxSupport, nodeBrowsers, routerToml } from './config.js';
import { missingLiveViewTools, type LivePorts, type LiveView } from './displays.js';
import { fenceBrowsers, removeFirewall, writeChromiumPolicy, writeFirefoxPolicy, type PortRange } from './fence.js';
import { gridAccount, gridWorkDir, RecentLines, writePrivate, type Launch } from './launch.js';
import { fenceReport, type FenceReport, type FenceSetting } from './fence-report.js';
import { livePortPair, startLiveView } from './live-views.js';
import { PROXY_PORTS, startBrowserProxy, type BrowserProxy, type BrowserProxyOptions } from './proxy.js';
import { CHROMEDRIVER } from './paths.js';
import { dockerNodeToml, startDockerNodeDisplay } from './docker-node.js';
import {
  exitDescription,
  freePort,
  hasExited,
  outputDrained,
  superviseJava,
  type SupervisedProcess,
} from './processes.js';
import { assertSystemDependencies, findJar } from './requirements.js';

export type { PortRange } from './fence.js';

const GRID_USERNAME = 'selenium-flow';
const READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 150;
const LOG_LINES_KEPT = 40;

export interface EmbeddedGrid {
  /** The Grid's URL with its credentials as userinfo: hand it to Grid clients, never print it. */
  url: string;
  /** The same URL without credentials, for a person to read. */
  address: string;
  /** Whether its browsers run as the unprivileged Grid user, fenced off this host's ports. */
  isolated: boolean;
  /** How its browsers are fenced off this host (banner, /ready, doctor). */
  fence: FenceReport;
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
  /** 'off' runs the browsers with no proxy (BROWSER_FENCE=off: a page can run programs as you). Default 'proxy'. */
  fence?: FenceSetting;
}

/** What a started Grid answers, in both layouts: the facts its launch decided, and how to reach and stop it. */
function started(
  launch: Launch,
  options: Pick<EmbeddedGridOptions, 'loopbackPorts'>,
  grid: Pick<EmbeddedGrid, 'url' | 'address' | 'liveViews' | 'liveViewMissing' | 'stop'>,
): EmbeddedGrid {
  const { liveViewMissing, ...reached } = grid;
  return {
    ...reached,
    isolated: launch.account !== undefined,
    fence: fenceReport(launch, options.loopbackPorts ?? []),
    ...(liveViewMissing === undefined ? {} : { liveViewMissing }),
    ...(launch.geckodriver === undefined
      ? { browsers: ['chrome'], firefoxMissing: launch.firefoxMissing }
      : { browsers: ['chrome', 'firefox'] }),
  };
}

/** What one watchable slot shows: its browser, and the binaries its display starts. */
type LiveKind = { browser: LiveView['browser']; binary: string; driver: string };

export async function startEmbeddedGrid(options: EmbeddedGridOptions = {}): Promise<EmbeddedGrid> {
  const port = options.port ?? (await freePort());
  const missing = (options.liveViews ?? 0) > 0 ? await missingLiveViewTools() : undefined;
  const liveCount = missing === undefined ? (options.liveViews ?? 0) : 0;
  // Ports for a Firefox display beside each Chromium one, fenced before it is known whether this host runs Firefox.
  const perView = options.firefox === false ? 1 : 2;
  const livePorts = await Promise.all(Array.from({ length: liveCount * perView }, async () => livePortPair()));
  const launch = await prepareLaunch(port, options.loopbackPorts ?? [], livePorts, options.firefox, options.fence);
  const { url, address } = gridUrls(port, launch.credentials);
  let supervised: SupervisedProcess | undefined;
  const displays: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    await supervised?.stop();
    await Promise.all(displays.map((d) => d.stop()));
    await launch.proxy?.stop();
  };
  try {
    const workDir = await gridWorkDir('grid', launch.account);
    const configPath = join(workDir, 'grid.toml');
    const browsers = await nodeBrowsers(launch, workDir);
    // One display per watchable browser: each live view is a Chromium, and a Firefox beside it
    // where this host runs Firefox (docs/live.md).
    const kinds: [LiveKind, ...LiveKind[]] = [
      { browser: 'chrome', binary: browsers.chromium, driver: CHROMEDRIVER },
      ...(browsers.firefox
        ? [{ browser: 'firefox' as const, binary: browsers.firefox.binary, driver: browsers.firefox.geckodriver }]
        : []),
    ];
    const views: LiveView[] = [];
    for (const [i, ports] of livePorts.slice(0, liveCount * kinds.length).entries()) {
      const kind = kinds[i % kinds.length] ?? kinds[0];
      const view = await startLiveView(launch, kind, ports);
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
  return started(launch, options, { url, address, liveViews: liveCount, liveViewMissing: missing, stop: stopAll });
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
  /**
   * Each node configured as docker-selenium's node images are (docker-node.ts): one session on a
   * display of its own, VNC behind `vncPassword` (none when undefined), noVNC, the SE_* variables.
   * `browsers` names each node's one browser, as node-chrome and node-firefox images do (default
   * one Chromium node per `nodes`); a Firefox node only where this host runs Firefox.
   */
  dockerSelenium?: { vncPassword?: string; browsers?: readonly BrowserKind[] };
  fence?: FenceSetting;
}

/**
 * The distributed Grid: a hub and `nodes` nodes, each its own JVM, talking over a loopback
 * event bus (the default binds every interface). Clients talk only to the hub's URL; the
 * nodes' `grid-url` makes the BiDi and VNC addresses they hand out point at the hub too.
 * The hub asks for the credentials; the nodes prove themselves with a registration secret.
 */
export async function startHubAndNodes(options: HubAndNodesOptions = {}): Promise<EmbeddedGrid> {
  const kinds = options.dockerSelenium?.browsers;
  const nodes = kinds?.length ?? options.nodes ?? 1;
  const hubPort = options.port ?? (await freePort());
  const docker = options.dockerSelenium;
  const livePorts = docker ? await Promise.all(Array.from({ length: nodes }, async () => livePortPair())) : [];
  const launch = await prepareLaunch(hubPort, options.loopbackPorts ?? [], livePorts, true, options.fence);
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
    await launch.proxy?.stop();
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
      const browsers = await nodeBrowsers(launch, workDir);
      const ports = livePorts[i];
      const display = docker && ports ? await startDockerNodeDisplay(launch, ports, docker.vncPassword) : undefined;
      if (display) {
        processes.push(display.process);
      }
      await writeFile(
        configPath,
        display
          ? dockerNodeToml(browsers, kinds?.[i] ?? 'chrome', address, display.ports.websocket)
          : gridToml(options.maxSessions ?? 4, browsers, address),
      );
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
        // docker-selenium's nodes are told their noVNC port by SE_NO_VNC_PORT (7900 there); the flag says it here.
        ...(display ? ['--no-vnc-port', display.env.SE_NO_VNC_PORT ?? ''] : []),
      ];
      args.push('--session-timeout', String(options.sessionTimeoutSeconds ?? 300));
      processes.push(await superviseJava(launch, workDir, args, '-Xmx192m', undefined, display?.env));
    }
    await waitUntilNodesReady(url, nodes, processes, launch.log);
  } catch (error) {
    await stop();
    await removeFirewall(launch.firewallTable);
    throw error;
  }
  return started(launch, options, { url, address, liveViews: livePorts.length, stop });
}

function gridUrls(port: number, credentials: { username: string; password: string }): { url: string; address: string } {
  const address = `http://127.0.0.1:${port}`;
  return { address, url: `http://${credentials.username}:${credentials.password}@127.0.0.1:${port}` };
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
  fence: FenceSetting = 'proxy',
): Promise<Launch & { proxy: BrowserProxy | undefined }> {
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
  const proxy =
    fence === 'off' ? undefined : await startProxy(loopbackPorts, isRoot ? { ports: PROXY_PORTS, owner: account } : {});
  const vncPorts = livePorts.flatMap((p) => [p.rfb, p.websocket]);
  // The browsers' group may open the proxies' ports: every connection a page makes goes through one.
  const open = proxy ? [...loopbackPorts, PROXY_PORTS] : loopbackPorts;
  let firewallTable: string | undefined;
  try {
    firewallTable = account ? await fenceBrowsers(port, account, open, vncPorts) : undefined;
  } catch (error) {
    await proxy?.stop();
    throw error;
  }
  return {
    jarPath,
    java,
    account,
    firewallTable,
    proxy,
    proxyPort: proxy?.port,
    proxyClients: proxy?.clientsDir,
    // base64url: no character that needs escaping in a URL's userinfo.
    credentials: { username: GRID_USERNAME, password: randomBytes(24).toString('base64url') },
    log: new RecentLines(LOG_LINES_KEPT),
    ...firefox,
  };
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

/** The proxy, or the refusal that names the risk and the one setting that accepts it. */
async function startProxy(loopbackPorts: readonly PortRange[], options: BrowserProxyOptions): Promise<BrowserProxy> {
  try {
    return await startBrowserProxy(loopbackPorts, options);
  } catch (error) {
    throw new Error(
      `Cannot fence the embedded Grid's browsers: their proxy did not start (${error instanceof Error ? error.message : String(error)}). ` +
        'Without it a page can run programs as you (through chromedriver). Fix the cause, use an external Grid (GRID_URL), ' +
        'or set BROWSER_FENCE=off to run unfenced anyway.',
    );
  }
}
