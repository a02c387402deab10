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
import type { DiskQuota } from './quotas/disk.js';
import { MemoryWorkspaceClaims, type WorkspacesPerToken } from './quotas/workspaces.js';
import { workspaceRoom, workspacesPerTokenOf } from './quotas/wiring.js';
import { LinkSigner } from './files/links.js';
import { hasManagedDownloads } from './grid/capabilities.js';
import { GridDownloads } from './grid/downloads.js';
import { Grid } from './grid/grid.js';
import { stderrLines } from './ops/log.js';
import { WarmUp } from './ops/warm-up.js';
import { countNothing } from './ops/metrics.js';
import { createSecrets } from './secrets/index.js';
import type { RecordStore } from './workspace/records.js';
import type { Turns } from './workspace/turns.js';
import { MemoryMcpSessions, type McpSessionStore } from './workspace/mcp-sessions.js';
import { MCP_SESSIONS_PER_TOKEN } from './limits.js';
import { callerOfWorkspace, workspaceOfKey } from './workspace/caller.js';
import { Workspaces } from './workspace/workspaces.js';
import { MemoryLiveStore, type LiveStore } from './live/live-store.js';
import { LiveService } from './live/service.js';
import { Controls } from './live/control.js';
import { underControl } from './live/under-control.js';
import { ControlTasks } from './live/tasks.js';
import { VisitedPages } from './live/pages.js';
import { createMonitoring, type Monitoring } from './live/monitor/monitoring.js';
import { MemoryNetworkLog } from './live/monitor/network-log.js';
import { EventLog } from './events/events.js';
import { connectBackends, memoryBackends, type Backends } from './backends.js';

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
  /** WORKSPACES_PER_TOKEN: a request naming a workspace is admitted here (HTTP; stdio has one workspace) */
  workspacesPerToken: WorkspacesPerToken;
  /** what each 2025-11-25 client said at initialize over HTTP (docs/apps.md) */
  mcpSessions: McpSessionStore;
  /** Gets ready for the first call, behind whatever else runs: start() it once serving (ops/warm-up.ts). */
  warmUp: WarmUp;
  close(): Promise<void>;
}

/**
 * The embedded Grid runs Chromium as an unprivileged user, where its sandbox works; most
 * external nodes (containers) run it where the sandbox cannot start, hence BROWSER_SANDBOX.
 */
export function browserSandbox(config: Pick<Config, 'browserSandbox' | 'gridUrl'>): boolean {
  return (config.browserSandbox ?? (config.gridUrl === undefined ? 'on' : 'off')) === 'on';
}

/**
 * The fence a Grid at GRID_URL sends its browsers through: FENCE_ADDRESS, which `serve` and
 * `stdio` set to where their fence listens when it is unset. The embedded Grid forces its own
 * proxy by its wrappers, whatever is asked.
 */
function fenceOf(config: Pick<Config, 'gridUrl' | 'browserFence' | 'fenceAddress'>): { proxy?: string } {
  const at = config.fenceAddress;
  return config.gridUrl === undefined || config.browserFence === 'off' || at === undefined
    ? {}
    : { proxy: `${at.host}:${at.port}` };
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
  const grid = createGrid(config, gridUrl);
  guardPrivateDirectories(config, stderrLines(config.logLevel, 'boot'));
  const {
    store,
    turns,
    network,
    liveStore = new MemoryLiveStore(),
    events: bus,
    claims = new MemoryWorkspaceClaims(),
    mcpSessions = new MemoryMcpSessions(config.sessionTtl * 1000, MCP_SESSIONS_PER_TOKEN),
  } = backends ?? memoryBackends(config);
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
  const room = workspaceRoom(config.dataDir, config.workspaceDiskQuota, turns, flowStore);
  const monitoring = createMonitoring({
    grid,
    workspaces,
    log: network ?? new MemoryNetworkLog(config.networkCaptureLimit, config.sessionTtl),
    bodyBytes: config.networkBodyMaxBytes,
    // stderr, as boot's lines: stdout may be stdio's protocol channel
    lines: stderrLines(config.logLevel, 'live'),
  });
  const library = flowStore
    ? new FlowLibraries(flowStore, CAPABILITIES, config.flowRunTimeout * 1000, events, room)
    : undefined;
  const files = createFiles(config, grid, workspaces, servedOver, room);
  const secrets = createSecretsOf(config, events);
  const { controls, liveView } = createControl(config, { liveStore, store, turns, grid, workspaces, monitoring });
  const deps: CallDeps = {
    workspaces,
    monitoring,
    files,
    turns,
    callTimeoutMs: config.callTimeout * 1000,
    // stderr until an HTTP server lends its logger (stdout is stdio's protocol channel).
    log: stderrLines(config.logLevel, 'calls'),
    flows: library,
    secrets,
    control: { controls, capMs: config.liveAwaitCap * 1000, tasks: new ControlTasks(liveStore), viewer: liveView },
    preconditions: [underControl(controls)],
    controlNotice: async (caller) => controls.notice(caller.workspace, true),
  };
  const workspacesPerToken = workspacesPerTokenOf(config.workspacesPerToken, claims, store, deps.files);
  const forget = (workspace: string) => workspacesPerToken.forget(workspace);
  return {
    grid,
    store,
    deps,
    workspacesPerToken,
    admin: createAdmin(deps, flowStore, library, events, { diskQuota: room.limitBytes, forget }),
    liveView,
    events,
    mcpSessions,
    warmUp: new WarmUp(grid.offers, servedOver === 'stdio' ? config.logLevel : undefined),
    close: async () => {
      await monitoring.close();
      await events.close();
      await store.close();
    },
  };
}

function createGrid(config: Config, gridUrl: string): Grid {
  // WebDriver's own bounds answer first (a clear timeout error), the call's deadline after them.
  const sessionMs = Math.floor(config.callTimeout * 800);
  return new Grid(gridUrl, {
    sandbox: browserSandbox(config),
    liveView: config.liveView,
    timeouts: { scriptMs: sessionMs, pageLoadMs: sessionMs },
    // replicas share a browser's BiDi session (a capture's bodies), so Chromium asks for it at creation
    bidiAtCreation: config.sessionStore === 'redis',
    ...fenceOf(config),
  });
}

/** Audit lines go to stderr until an HTTP server lends its logger (stdout is stdio's protocol). */
function createSecretsOf(config: Config, events: EventLog): CallDeps['secrets'] {
  return createSecrets(
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
  );
}

/** A person's Control: its episodes, the pages they visit while holding it, and the live view that shows it. */
function createControl(
  config: Config,
  parts: {
    liveStore: LiveStore;
    store: RecordStore;
    turns: Turns;
    grid: Grid;
    workspaces: Workspaces;
    monitoring: Monitoring;
  },
): { controls: Controls; liveView: LiveService } {
  const { liveStore, store, turns, grid, workspaces, monitoring } = parts;
  // The replica that granted Control follows the pages; a browser the Grid reaped ends the episode.
  // Asked only of a browser Controls follows, so `controls` below is there by then.
  const pages = new VisitedPages(monitoring.monitors, liveStore, async (workspace, gridId) => {
    if (!(await controls.holds(workspace, gridId))) {
      return false;
    }
    if (await workspaces.isRunning(gridId).catch(() => true)) {
      return true;
    }
    await controls.ended(workspace);
    return false;
  });
  const controls = new Controls(liveStore, store, turns, {
    follow: (browser) => pages.follow(browser),
    unfollow: (gridId) => pages.unfollow(gridId),
    // never a WebDriver command: that would count as use, and a held browser nobody uses must still idle out
    alive: (gridId) => workspaces.isRunning(gridId),
    bidiAddress: (capabilities) => monitoring.bidiAddress(capabilities),
  });
  // A browser that ends under a person's hands ends their Control too: nothing is left to hold.
  workspaces.onBrowserEnded((key) => {
    const workspace = workspaceOfKey(key);
    if (workspace !== undefined) {
      void controls.ended(workspace).catch(() => undefined);
    }
  });
  const liveView = new LiveService(liveStore, store, grid, controls, config.controlBy, config.gridVncPassword);
  return { controls, liveView };
}

function createFiles(
  config: Config,
  grid: Grid,
  workspaces: Workspaces,
  servedOver: 'http' | 'stdio',
  room: DiskQuota,
): Files {
  return new Files({
    dataDir: config.dataDir,
    room,
    downloads: new GridDownloads(grid),
    ...(servedOver === 'http' ? { links: new LinkSigner(config.linkSecret ?? config.authToken, config.linkTtl) } : {}),
    linkBase: publicBase(config),
    // No liveness probe: the downloads call itself answers 404 for a browser the Grid has reaped.
    browserOf: async (workspace) => {
      const record = await workspaces.record(callerOfWorkspace(workspace).key);
      return record?.gridId
        ? { gridId: record.gridId, downloads: hasManagedDownloads(record.capabilities) }
        : undefined;
    },
  });
}

/**
 * stdio's parts: createParts with the configured store connected first (Redis is pinged at boot),
 * getting ready for the first call. No HTTP server, so no /metrics: nothing could read what it
 * would count.
 */
export async function openParts(config: Config, gridUrl: string): Promise<Parts> {
  countNothing();
  const parts = createParts(config, gridUrl, await connectBackends(config), 'stdio');
  parts.warmUp.start();
  return parts;
}
