import { join } from 'node:path';
import { BROWSER_KINDS, type BrowserKind } from '../grid/capabilities.js';
import { nodeBrowsers } from './browser-wrappers.js';
import { gridToml, routerToml } from './config.js';
import { missingLiveViewTools, type LiveView } from './displays.js';
import { removeFirewall, type PortRange } from './fence.js';
import { fenceReport, type FenceReport, type FenceSetting } from './fence-report.js';
import { gridWorkDir, writePrivate, type Launch } from './launch.js';
import { livePortPair, startLiveView } from './live-views.js';
import { CHROMEDRIVER } from './paths.js';
import { gridUrls, prepareLaunch } from './prepare.js';
import { freePort, superviseJava, type SupervisedProcess } from './processes.js';
import { InstanceNotice } from './neighbours.js';
import type { NameOptions } from './proxy-names.js';
import { untilGridReady } from './readiness.js';
import { browserSandbox } from './sandbox.js';

export type { PortRange } from './fence.js';

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
  /** What this instance says of itself to the others on this host (neighbours.ts): add the server's port. */
  notice: InstanceNotice;
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
  /** How the browsers' proxy resolves names; default the hosts file and /etc/resolv.conf's servers (tests bring their own DNS). */
  names?: NameOptions;
  /** the server's own files (tokens, secrets, data, config): no browser's sandbox shows them */
  hidden?: readonly string[];
  /** what this instance says of itself to the others on this host; default a notice of the Grid's own, withdrawn at its stop */
  notice?: InstanceNotice;
}

/** What a started Grid answers, in both layouts: the facts its launch decided, and how to reach and stop it. */
export function started(
  launch: Launch,
  options: Pick<EmbeddedGridOptions, 'loopbackPorts'>,
  grid: Pick<EmbeddedGrid, 'url' | 'address' | 'liveViews' | 'liveViewMissing' | 'stop'>,
): EmbeddedGrid {
  const { liveViewMissing, ...reached } = grid;
  return {
    ...reached,
    notice: launch.notice,
    isolated: launch.account !== undefined,
    fence: fenceReport(launch, options.loopbackPorts ?? []),
    ...(liveViewMissing === undefined ? {} : { liveViewMissing }),
    ...(launch.geckodriver === undefined
      ? { browsers: ['chrome'], firefoxMissing: launch.firefoxMissing }
      : { browsers: [...BROWSER_KINDS] }),
  };
}

/** The notice a Grid opened for itself goes with it; one it was handed stays its owner's. */
export async function withdrawOwn(options: { notice?: InstanceNotice }, notice: InstanceNotice): Promise<void> {
  if (options.notice === undefined) {
    await notice.withdraw();
  }
}

/**
 * Why this host offers no watchable slot, for a person to read: a display tool is missing, or no
 * sandbox can lock the browser's window (then a person in Control would hold the machine: its
 * file dialogs, internal pages and settings). Undefined when it can offer them.
 */
export async function liveViewMissing(unsandboxed: string | undefined): Promise<string | undefined> {
  return (
    (await missingLiveViewTools()) ??
    (unsandboxed === undefined
      ? undefined
      : `This Grid offers no watchable browser: a person in Control would reach this machine through the browser's own window (its file dialogs, internal pages, settings), and no sandbox can lock it here: ${unsandboxed}. Fix that and restart to watch and take control.`)
  );
}

/** What one watchable slot shows: its browser, and the binaries its display starts. */
type LiveKind = { browser: LiveView['browser']; binary: string; driver: string };

export async function startEmbeddedGrid(options: EmbeddedGridOptions = {}): Promise<EmbeddedGrid> {
  try {
    return await startGridOnce(options);
  } catch (error) {
    // A port is free only when asked: another program may take it before the Grid binds it.
    if (options.port !== undefined || !(error instanceof Error) || !error.message.includes('BindException')) {
      throw error;
    }
    return startGridOnce(options);
  }
}

async function startGridOnce(options: EmbeddedGridOptions): Promise<EmbeddedGrid> {
  const port = options.port ?? (await freePort());
  const { sandbox, missing: unsandboxed } = await browserSandbox(options.hidden ?? []);
  const missing = (options.liveViews ?? 0) > 0 ? await liveViewMissing(unsandboxed) : undefined;
  const liveCount = missing === undefined ? (options.liveViews ?? 0) : 0;
  // Ports for a Firefox display beside each Chromium one, fenced before it is known whether this host runs Firefox.
  const perView = options.firefox === false ? 1 : 2;
  const livePorts = await Promise.all(Array.from({ length: liveCount * perView }, async () => livePortPair()));
  const notice = options.notice ?? (await InstanceNotice.open());
  const launch = await prepareLaunch(port, {
    loopbackPorts: options.loopbackPorts ?? [],
    livePorts,
    firefox: options.firefox,
    fence: options.fence,
    sandbox,
    names: options.names,
    notice,
  }).catch(async (error: unknown) => {
    await withdrawOwn(options, notice);
    throw error;
  });
  const { url, address } = gridUrls(port, launch.credentials);
  let supervised: SupervisedProcess | undefined;
  const displays: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    await supervised?.stop();
    await Promise.all(displays.map((d) => d.stop()));
    await launch.proxy?.stop();
    await withdrawOwn(options, notice);
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
    await untilGridReady(url, [supervised], launch.log);
  } catch (error) {
    await stopAll();
    await removeFirewall(launch.firewallTable);
    throw error;
  }
  return started(launch, options, { url, address, liveViews: liveCount, liveViewMissing: missing, stop: stopAll });
}
