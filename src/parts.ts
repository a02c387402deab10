/**
 * The parts both surfaces serve from (the call path's dependencies, the Grid, the store, the
 * live view, the events), built from the config. Nothing HTTP-only is imported here: `stdio`
 * loads this and never fastify (cold start, issue 17); `server.ts` adds the HTTP app.
 */
import { mkdirSync, statSync } from 'node:fs';
import { createAdmin, type AdminServices } from './admin/services.js';
import type { CallDeps } from './capabilities/call/call.js';
import { publicBase, type Config } from './config.js';
import { CAPABILITIES } from './capabilities/index.js';
import { FlowLibraries } from './flows/library.js';
import { DirectoryFlowStore } from './flows/store.js';
import { Files } from './files/files.js';
import { LinkSigner } from './files/links.js';
import { GridDownloads } from './grid/downloads.js';
import { Grid } from './grid/grid.js';
import { StoreUnavailable } from './errors.js';
import { stderrLines } from './ops/log.js';
import { createSecrets } from './secrets/index.js';
import { MemoryRecordStore, type RecordStore } from './workspace/records.js';
import { LocalTurns, type Turns } from './workspace/turns.js';
import { callerOfWorkspace, workspaceOfKey } from './workspace/caller.js';
import { Workspaces } from './workspace/workspaces.js';
import { MemoryLiveStore, type LiveStore } from './live/live-store.js';
import { LiveService } from './live/service.js';
import { Controls } from './live/control.js';
import { underControl } from './live/under-control.js';
import { ControlTasks } from './live/tasks.js';
import { VisitedPages } from './live/pages.js';
import { createLive } from './live/live.js';
import { MemoryNetworkLog, type NetworkLog } from './live/network-log.js';
import { EventLog, type EventBus } from './events/events.js';
// A type only: erased, so ioredis loads only when Redis is configured.
import type * as RedisModule from './redis/index.js';

export interface Parts {
  grid: Grid;
  store: RecordStore;
  deps: CallDeps;
  /** the operator's services behind /admin/api */
  admin: AdminServices;
  /** the live view's tickets, tunnels and Control episodes */
  liveView: LiveService;
  /** the audit events every area emits into */
  events: EventLog;
  close(): Promise<void>;
}

/** Where workspace records live and how calls on one browser take turns. */
export interface Backends {
  store: RecordStore;
  turns: Turns;
  /** tickets and Control episodes (docs/live.md), beside the records */
  liveStore?: LiveStore;
  /** what network capture recorded; in this process when absent */
  network?: NetworkLog;
  /** how audit events reach every replica; in this process when absent */
  events?: EventBus;
}

/**
 * The configured store, connected: in this process (memory), or Redis shared by replicas,
 * pinged now. A Redis that cannot be reached, or a missing ioredis package, stops the boot
 * with the reason (StoreUnavailable); it never falls back to memory.
 */
export async function connectBackends(
  config: Config,
  load: () => Promise<typeof RedisModule> = () => import('./redis/index.js'),
): Promise<Backends> {
  if (config.sessionStore === 'memory' || !config.redisUrl) {
    return memoryBackends(config);
  }
  let redis: typeof RedisModule;
  try {
    redis = await load();
  } catch (err) {
    if (isMissingIoredis(err)) {
      throw new StoreUnavailable(
        'REDIS_URL is set but the ioredis package is missing; run `npm install` (ioredis is a dependency of selenium-flow), then start again.',
      );
    }
    throw err;
  }
  return redis.openRedisStores(config.redisUrl, {
    ttlSeconds: config.sessionTtl,
    networkCaptureLimit: config.networkCaptureLimit,
  });
}

function isMissingIoredis(err: unknown): boolean {
  return (
    err instanceof Error && 'code' in err && err.code === 'ERR_MODULE_NOT_FOUND' && err.message.includes('ioredis')
  );
}

function memoryBackends(config: Config): Backends {
  if (config.sessionStore !== 'memory') {
    throw new Error('SESSION_STORE is redis: connect it with connectBackends (or openServer / openParts) first.');
  }
  return { store: new MemoryRecordStore(config.sessionTtl), turns: new LocalTurns(), liveStore: new MemoryLiveStore() };
}

/**
 * The embedded Grid runs Chromium as an unprivileged user, where its sandbox works; most
 * external nodes (containers) run it where the sandbox cannot start, hence BROWSER_SANDBOX.
 */
export function browserSandbox(config: Pick<Config, 'browserSandbox' | 'gridUrl'>): boolean {
  return (config.browserSandbox ?? (config.gridUrl === undefined ? 'on' : 'off')) === 'on';
}

/**
 * The browsers run as another OS user (the embedded Grid's, or a node's): what they must not
 * read has to be closed to other users. A new data directory is created private; one open to
 * others, or an open secrets directory, is said at boot (the path, never a content).
 */
function guardPrivateDirectories(
  config: Pick<Config, 'dataDir' | 'secretsDirs'>,
  log: { warn(event: object, message: string): void },
): void {
  if (config.dataDir !== undefined) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  }
  const dirs: Array<[string, string]> = [
    ...(config.dataDir ? [['FLOW_DATA_DIR', config.dataDir] satisfies [string, string]] : []),
    ...config.secretsDirs.map((dir): [string, string] => ['SECRETS_DIRS', dir]),
  ];
  for (const [setting, dir] of dirs) {
    const mode = statSync(dir, { throwIfNoEntry: false })?.mode;
    if (mode !== undefined && (mode & 0o007) !== 0) {
      log.warn(
        { setting, path: dir, mode: (mode & 0o777).toString(8) },
        `${setting} ${dir} is open to other users, a browser's among them: run chmod o-rwx on it.`,
      );
    }
  }
}

/**
 * Wiring only: every part is built here from the config, and nothing else builds parts.
 * `servedOver`: stdio has no HTTP server, so its file answers carry no link to open.
 */
export function createParts(
  config: Config,
  gridUrl: string,
  backends?: Backends,
  servedOver: 'http' | 'stdio' = 'http',
): Parts {
  // WebDriver's own bounds answer first (a clear timeout error), the call's deadline after them.
  const sessionMs = Math.floor(config.callTimeout * 800);
  const grid = new Grid(gridUrl, {
    sandbox: browserSandbox(config),
    liveView: config.liveView,
    timeouts: { scriptMs: sessionMs, pageLoadMs: sessionMs },
    // replicas share a browser's BiDi session (a capture's bodies), so Chromium asks for it at creation
    bidiAtCreation: config.sessionStore === 'redis',
  });
  guardPrivateDirectories(config, stderrLines(config.logLevel, 'boot'));
  const { store, turns, network, liveStore = new MemoryLiveStore(), events: bus } = backends ?? memoryBackends(config);
  const events = new EventLog(bus, config.eventsHeartbeat * 1000);
  const workspaces = new Workspaces(
    grid,
    store,
    {
      browsersPerCaller: config.browsersPerCaller,
      slotWaitSeconds: config.gridSlotWait,
      defaultBrowser: config.defaultBrowser,
    },
    events,
  );
  const flowStore = config.dataDir ? new DirectoryFlowStore(config.dataDir) : undefined;
  const live = createLive({
    grid,
    workspaces,
    log: network ?? new MemoryNetworkLog(config.networkCaptureLimit, config.sessionTtl),
    bodyBytes: config.networkBodyMaxBytes,
  });
  const library = flowStore
    ? new FlowLibraries(flowStore, CAPABILITIES, config.flowRunTimeout * 1000, events)
    : undefined;
  const deps: CallDeps = {
    workspaces,
    live,
    files: createFiles(config, grid, workspaces, servedOver),
    turns,
    callTimeoutMs: config.callTimeout * 1000,
    // stderr until an HTTP server lends its logger (stdout is stdio's protocol channel).
    log: stderrLines(config.logLevel, 'calls'),
    flows: library,
    // Audit lines go to stderr until an HTTP server lends its logger (stdout is stdio's protocol).
    secrets: createSecrets(
      {
        dirs: config.secretsDirs,
        kubernetes: config.secretsKubernetes,
        accountDir: config.kubernetesAccountDir,
        kubernetesHost: config.kubernetesHost,
        kubernetesPort: config.kubernetesPort,
        ttlSeconds: config.secretsTtl,
      },
      stderrLines(config.logLevel, 'secrets'),
      events,
    ),
  };
  const controls: Controls = new Controls(liveStore, store, turns, undefined, {
    follow: (browser) => pages.follow(browser),
    unfollow: (gridId) => pages.unfollow(gridId),
    // never a WebDriver command: that would count as use, and a held browser nobody uses must still idle out
    alive: (gridId) => workspaces.isRunning(gridId),
    bidiAddress: (capabilities) => live.bidiAddress(capabilities),
  });
  // The replica that granted Control follows the pages; a browser the Grid reaped ends the episode.
  const pages = new VisitedPages(live.monitors, liveStore, async (workspace, gridId) => {
    if (!(await controls.holds(workspace, gridId))) {
      return false;
    }
    if (await workspaces.isRunning(gridId).catch(() => true)) {
      return true;
    }
    await controls.ended(workspace);
    return false;
  });
  const liveView = new LiveService(liveStore, store, grid, controls, config.gridVncPassword);
  deps.control = {
    controls,
    capMs: config.liveAwaitCap * 1000,
    tasks: new ControlTasks(liveStore),
    viewer: liveView,
  };
  deps.preconditions = [...(deps.preconditions ?? []), underControl(controls)];
  deps.controlNotice = async (caller) => controls.notice(caller.workspace, true);
  // A browser that ends under a person's hands ends their Control too: nothing is left to hold.
  workspaces.onBrowserEnded((key) => {
    const workspace = workspaceOfKey(key);
    if (workspace !== undefined) {
      void controls.ended(workspace).catch(() => undefined);
    }
  });
  return {
    grid,
    store,
    deps,
    admin: createAdmin(deps, flowStore, library, events),
    liveView,
    events,
    close: async () => {
      await live.close();
      await events.close();
      await store.close();
    },
  };
}

function createFiles(config: Config, grid: Grid, workspaces: Workspaces, servedOver: 'http' | 'stdio'): Files {
  return new Files({
    dataDir: config.dataDir,
    downloads: new GridDownloads(grid),
    ...(servedOver === 'http' ? { links: new LinkSigner(config.linkSecret ?? config.authToken, config.linkTtl) } : {}),
    linkBase: publicBase(config),
    // No liveness probe: the downloads call itself answers 404 for a browser the Grid has reaped.
    browserOf: async (workspace) => (await workspaces.record(callerOfWorkspace(workspace).key))?.gridId,
  });
}

/** stdio's parts: createParts with the configured store connected first (Redis is pinged at boot). */
export async function openParts(config: Config, gridUrl: string): Promise<Parts> {
  return createParts(config, gridUrl, await connectBackends(config), 'stdio');
}
