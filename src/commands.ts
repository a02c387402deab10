import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, defaultDataDir, loadConfig, publicBase, serversFiles, type Config } from './config.js';
import { parseCommandLine, UsageError, type CommandLine } from './command-line.js';
import {
  fenceForGrid,
  GRID_USER,
  startEmbeddedGrid,
  startHubAndNodes,
  type EmbeddedGrid,
  type OutsideGrid,
} from './embedded-grid/index.js';
import { accessLines, BANNER_WORKSPACE, clientLines, liveLine } from './banner.js';
import { withoutCredentials } from './grid/fetch.js';
import { VERSION } from './package.js';
import { redisWhere } from './redis/url.js';
import { usage } from './usage.js';
import { STDIO_CALLER } from './workspace/caller.js';

// selenium-webdriver's driver manager otherwise reaches for the internet; we only talk to a Grid.
process.env.SE_OFFLINE ??= 'true';
process.env.SE_AVOID_STATS ??= 'true';

async function main(): Promise<void> {
  let line;
  try {
    line = parseCommandLine(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) {
      throw err;
    }
    process.stderr.write(`selenium-flow: ${err.message}. See selenium-flow --help.\n`);
    process.exitCode = 2;
    return;
  }
  if (line === 'help' || line === 'version') {
    process.stdout.write(line === 'help' ? usage(GRID_USER) : `${VERSION}\n`);
    return;
  }
  const { command, flags, file } = line;
  if (command === 'setup') {
    const { runSetup } = await import('./embedded-grid/setup.js');
    process.exitCode = await runSetup({ redis: line.withRedis });
    return;
  }
  const config = loadConfig(flags, process.env, { command, file });
  if (command === 'doctor') {
    process.exitCode = await doctor(config);
    return;
  }
  if (command === 'grid') {
    await serveGrid(config, line);
    return;
  }
  // A person starting it from a desktop client sets nothing: flows and files still have a home.
  let served = { ...config, dataDir: config.dataDir ?? defaultDataDir() };
  let embedded: EmbeddedGrid | undefined;
  let here: OutsideGrid | EmbeddedGrid | undefined;
  let noGrid: string | undefined;
  if (served.gridUrl) {
    // Another's Grid: its browsers go through this server's fence, where its nodes reach it.
    here = await fenceForGrid({ ...served, gridUrl: served.gridUrl });
    served = { ...served, fenceAddress: served.fenceAddress ?? here.address };
    logFence(here, 'Grid');
  } else {
    try {
      embedded = await startEmbeddedGrid({
        loopbackPorts: served.browserLoopbackPorts,
        liveViews: served.embeddedLiveViews,
        fence: served.browserFence,
        hidden: serversFiles(served, file),
      });
      here = embedded;
      logFence(embedded, 'embedded Grid');
    } catch (err) {
      // A desktop client that started us sees only a process that exited before `initialize`:
      // stdio serves anyway and says why to the first call that needs a browser.
      if (command !== 'stdio') {
        throw err;
      }
      noGrid = noGridReason(err);
    }
  }
  const gridUrl = served.gridUrl ?? embedded?.url ?? NO_GRID_URL;
  if (command === 'stdio') {
    await serveOverStdio(served, gridUrl, here, noGrid);
  } else {
    await serveOverHttp(served, gridUrl, embedded, here);
  }
}

/** `selenium-flow doctor`: what this machine and the configured Grid can do, and what is missing. */
async function doctor(config: Config): Promise<number> {
  const [{ runDoctor }, { browserSandbox }] = await Promise.all([
    import('./embedded-grid/doctor.js'),
    import('./parts.js'),
  ]);
  return runDoctor({
    gridUrl: config.gridUrl,
    loopbackPorts: config.browserLoopbackPorts,
    fence: config.browserFence,
    fencePlace: { fenceListen: config.fenceListen, fenceAddress: config.fenceAddress, allow: config.fenceAllow },
    sandbox: browserSandbox(config),
    slotWaitSeconds: config.gridSlotWait,
    oauth: config.oauthIssuer
      ? { issuer: config.oauthIssuer, introspects: config.oauthClientId !== undefined }
      : undefined,
  });
}

/** `selenium-flow grid`: the embedded Grid (or a hub and nodes) alone, until Ctrl-C. */
async function serveGrid(config: Config, line: CommandLine): Promise<void> {
  const { file } = line;
  const nodes = line.nodes === undefined ? undefined : Number(line.nodes);
  if (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 1 || nodes > 16)) {
    throw new Error('--nodes must be a whole number from 1 to 16 (the nodes behind one hub).');
  }
  const loopbackPorts = config.browserLoopbackPorts;
  const fence = config.browserFence;
  const hidden = serversFiles(config, file);
  const grid = nodes
    ? await startHubAndNodes({ nodes, loopbackPorts, fence, hidden })
    : await startEmbeddedGrid({ loopbackPorts, liveViews: config.embeddedLiveViews, fence, hidden });
  logFence(grid, 'embedded Grid');
  const shape = nodes ? ` (hub + ${nodes} node${nodes > 1 ? 's' : ''})` : '';
  // The operator's only way to use this Grid is its URL with the per-boot credentials. A
  // terminal ends up in scrollback, CI logs and screenshots: the URL goes to a file only its
  // owner can read, and the terminal says where.
  const envFile = await writeGridEnvFile(grid.url);
  process.stdout.write(
    `Selenium Grid ready${shape} at ${withoutCredentials(grid.url)}; Ctrl-C stops it.\n` +
      `Its browsers are fenced: ${grid.fence.summary}.\n` +
      `Its GRID_URL, with this start's credentials, is in ${envFile} (readable only by you): \`set -a; . ${envFile}; set +a\` before \`selenium-flow serve\`.\n`,
  );
  onExit(async () => {
    // First: the Grid's stop may outlast the shutdown limit, and a stale file must not stay.
    await rm(dirname(envFile), { recursive: true, force: true });
    await grid.stop();
  });
}

/** Where a stdio server without a Grid points its Grid client: nothing listens on port 9 (discard). */
const NO_GRID_URL = 'http://127.0.0.1:9';

/** Why the embedded Grid did not start, and the remedy, in one message a model can pass on. */
function noGridReason(err: unknown): string {
  // The first line only: a Grid that exited adds its own log lines below it.
  const why = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return (
    `This server has no Selenium Grid: ${why} ` +
    'Run `selenium-flow setup` on this Debian/Ubuntu machine (`selenium-flow doctor` says what is missing), ' +
    "or set GRID_URL in this server's env to a running Grid, then restart it."
  );
}

/**
 * One log line on stderr (stdout is stdio's protocol channel) saying how the browsers are fenced,
 * loud when they are not: BROWSER_FENCE=off lets a page run programs where its browser runs. A
 * second says why no browser can be watched, where none can.
 */
function logFence(grid: OutsideGrid | EmbeddedGrid, which: string): void {
  const warning = grid.fence.kind === 'none' ? 'WARNING: ' : '';
  process.stderr.write(`selenium-flow: ${warning}${which}'s browsers fenced: ${grid.fence.summary}\n`);
  if ('liveViewMissing' in grid && grid.liveViewMissing !== undefined) {
    process.stderr.write(`selenium-flow: ${grid.liveViewMissing}\n`);
  }
}

/** GRID_URL=… in a new private directory (0700) and file (0600): the credentials change at every start. */
async function writeGridEnvFile(gridUrl: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-grid-url-'));
  const file = join(dir, 'grid.env');
  await writeFile(file, `GRID_URL=${gridUrl}\n`, { mode: 0o600 });
  return file;
}

async function serveOverHttp(
  config: Config & { dataDir: string },
  gridUrl: string,
  embedded: EmbeddedGrid | undefined,
  here: OutsideGrid | EmbeddedGrid | undefined,
): Promise<void> {
  const { openServer } = await import('./server.js');
  const server = await openServer(config, gridUrl, here?.fence.summary);
  const address = await server.app.listen({ host: config.host, port: config.port }).catch(async (err: unknown) => {
    await server.close();
    throw (err as NodeJS.ErrnoException).code === 'EADDRINUSE'
      ? new Error(
          `Port ${config.port} of ${config.host} is in use by another program; stop it, or set PORT (--port) to another.`,
        )
      : err;
  });
  const base = publicBase(config, address);
  // Another instance's fence refuses this port to its browsers even where its BROWSER_LOOPBACK_PORTS opens it.
  await here?.notice.add({
    ports: [server.app.server.address()].flatMap((a) => (typeof a === 'object' && a ? [a.port] : [])),
  });
  process.stdout.write(
    [
      `selenium-flow ${VERSION} serving`,
      `  MCP:      ${base}/mcp?workspace=${BANNER_WORKSPACE} (the workspace keeps the browser; plain /mcp: one per MCP session, else a session_id each)`,
      `  REST:     ${base}/openapi.json (send X-Workspace: ${BANNER_WORKSPACE} to keep a browser)`,
      `  Grid:     ${embedded ? `embedded${embedded.isolated ? `, browsers run as ${GRID_USER}` : ''}` : withoutCredentials(gridUrl)}`,
      `  Fence:    ${here?.fence.summary ?? ''}`,
      ...(embedded ? [`  Live:     ${liveLine(embedded)}`] : []),
      `  Data:     ${config.dataDir}`,
      `  Store:    ${config.sessionStore === 'redis' ? `redis at ${redisWhere(config.redisUrl ?? '')}` : 'memory (this process only)'}`,
      ...accessLines(config, base, server.adminCode),
      ...clientLines(
        `${base}/mcp?workspace=${BANNER_WORKSPACE}`,
        config.authToken !== undefined || config.tokensFile !== undefined,
      ),
      '',
    ].join('\n'),
  );
  // The workspaces' browsers stay on the Grid for the next replica; an embedded Grid ends with us.
  const graceMs = config.shutdownGrace * 1000;
  onExit(async () => {
    await server.stop(graceMs);
    await here?.stop();
  }, graceMs + SHUTDOWN_MARGIN_MS);
}

async function serveOverStdio(
  config: Config,
  gridUrl: string,
  here: OutsideGrid | EmbeddedGrid | undefined,
  noGrid: string | undefined,
): Promise<void> {
  // stdout is the protocol channel here: nothing else may write to it.
  // parts.js, not server.js: stdio never loads the HTTP app (fastify and its routes).
  const [{ openParts }, { buildMcpServer }, { listedTools }, { serveStdio }] = await Promise.all([
    import('./parts.js'),
    import('./mcp/server.js'),
    import('./mcp/tools.js'),
    import('@modelcontextprotocol/server/stdio'),
  ]);
  const parts = await openParts(config, gridUrl);
  process.stderr.write(`selenium-flow ${VERSION} on stdio; flows and files in ${config.dataDir ?? 'nowhere'}\n`);
  if (noGrid) {
    process.stderr.write(`selenium-flow: ${noGrid}\n`);
  }
  const tools = listedTools(config.mirrorTools === 'on');
  const log = (err: unknown) =>
    process.stderr.write(`selenium-flow: tool call failed (${err instanceof Error ? err.name : typeof err})\n`);
  const flowTools = { enabled: config.flowTools === 'on', max: config.flowToolsMax };
  const onToolsListed = () => parts.warmUp.listed();
  const options = { version: VERSION, tools, log, flowTools, connection: true, noGrid, onToolsListed };
  const handle = serveStdio(() => buildMcpServer(parts.deps, STDIO_CALLER, options));
  const stop = async () => {
    await handle.close();
    await parts.close();
    await here?.stop();
  };
  process.stdin.on('end', () => void stop().then(() => process.exit(0)));
  onExit(stop);
}

/** What serve's stop may take past SHUTDOWN_GRACE (closing the store and the embedded Grid), and the others' stop. */
const SHUTDOWN_MARGIN_MS = 5_000;
const STOP_LIMIT_MS = 8_000;

function onExit(stop: () => Promise<void>, limitMs = STOP_LIMIT_MS): void {
  let stopping = false;
  const handler = () => {
    if (stopping) {
      return;
    }
    stopping = true;
    // Whatever still holds the process after this (a store or Grid that does not answer) is abandoned.
    setTimeout(() => process.exit(1), limitMs).unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`selenium-flow: ${message}\n`);
  process.exit(1);
});
