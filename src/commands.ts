import { setTimeout as delay } from 'node:timers/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, defaultDataDir, loadConfig, publicBase, settingsHelp, type Config } from './config.js';
import { parseCommandLine, UsageError } from './command-line.js';
import {
  EXTERNAL_FENCE,
  GRID_USER,
  startEmbeddedGrid,
  startHubAndNodes,
  type EmbeddedGrid,
} from './embedded-grid/index.js';
import { accessLines, BANNER_WORKSPACE, clientLines } from './banner.js';
import { withoutCredentials } from './grid/fetch.js';
import { VERSION } from './package.js';
import { redisWhere } from './redis/url.js';
import { STDIO_CALLER } from './workspace/caller.js';

// selenium-webdriver's driver manager otherwise reaches for the internet; we only talk to a Grid.
process.env.SE_OFFLINE ??= 'true';
process.env.SE_AVOID_STATS ??= 'true';

const USAGE = `selenium-flow ${VERSION}: drive real browsers on a Selenium Grid over MCP and HTTP.

Usage:
  selenium-flow serve   HTTP: MCP at /mcp, the REST API, OpenAPI at /openapi.json
  selenium-flow stdio   MCP over stdio, for desktop clients
  selenium-flow grid    start the embedded Selenium Grid; its GRID_URL (with this start's
                        credentials) goes to a private file whose path it prints
                        (--nodes N: a hub and N nodes instead of one)
  selenium-flow setup   install what the embedded Grid needs on Debian/Ubuntu: its packages
                        through apt as root (else the apt line to run), geckodriver with cargo
                        (--with-redis: Redis too)
  selenium-flow doctor  say what this host has and lacks for serving browsers, and how to fix
                        it (exit code 1 when something required is missing)
  selenium-flow --version | --help

Without GRID_URL, serve and stdio start an embedded Grid (Java + Debian chromium) and stop it on exit;
on macOS or Windows, point GRID_URL at a Grid (e.g. docker-selenium's standalone image).
Its browsers reach this host only through a proxy that closes its ports (BROWSER_LOOPBACK_PORTS opens some);
as root they also run as the unprivileged user ${GRID_USER} behind an nftables table.
Without FLOW_DATA_DIR, serve and stdio keep flows and files in ${defaultDataDir()}.

Each setting: its flag, else its env var (SELENIUM_FLOW_<NAME> wins over <NAME>), else the file named by
--config <file> or SELENIUM_FLOW_CONFIG (JSON or YAML, keyed by flag name without --), else its default.
${settingsHelp()}
`;

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
    process.stdout.write(line === 'help' ? USAGE : `${VERSION}\n`);
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
    const { runDoctor } = await import('./embedded-grid/doctor.js');
    process.exitCode = await runDoctor({
      gridUrl: config.gridUrl,
      loopbackPorts: config.browserLoopbackPorts,
      fence: config.browserFence,
    });
    return;
  }
  if (command === 'grid') {
    const nodes = line.nodes === undefined ? undefined : Number(line.nodes);
    if (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 1 || nodes > 16)) {
      throw new Error('--nodes must be a whole number from 1 to 16 (the nodes behind one hub).');
    }
    const loopbackPorts = config.browserLoopbackPorts;
    const fence = config.browserFence;
    const grid = nodes
      ? await startHubAndNodes({ nodes, loopbackPorts, fence })
      : await startEmbeddedGrid({ loopbackPorts, liveViews: config.embeddedLiveViews, fence });
    logFence(grid);
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
    return;
  }
  // A person starting it from a desktop client sets nothing: flows and files still have a home.
  const served = { ...config, dataDir: config.dataDir ?? defaultDataDir() };
  let embedded: EmbeddedGrid | undefined;
  let noGrid: string | undefined;
  if (!served.gridUrl) {
    try {
      embedded = await startEmbeddedGrid({
        loopbackPorts: served.browserLoopbackPorts,
        liveViews: served.embeddedLiveViews,
        fence: served.browserFence,
      });
      logFence(embedded);
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
    await serveOverStdio(served, gridUrl, embedded, noGrid);
  } else {
    await serveOverHttp(served, gridUrl, embedded);
  }
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
 * loud when they are not: BROWSER_FENCE=off lets a page run programs as the server's user.
 */
function logFence(grid: EmbeddedGrid): void {
  const warning = grid.fence.kind === 'none' ? 'WARNING: ' : '';
  process.stderr.write(`selenium-flow: ${warning}embedded Grid's browsers fenced: ${grid.fence.summary}\n`);
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
): Promise<void> {
  const { openServer } = await import('./server.js');
  const server = await openServer(config, gridUrl, (embedded?.fence ?? EXTERNAL_FENCE).summary);
  const address = await server.app.listen({ host: config.host, port: config.port }).catch(async (err: unknown) => {
    await server.close();
    throw (err as NodeJS.ErrnoException).code === 'EADDRINUSE'
      ? new Error(
          `Port ${config.port} of ${config.host} is in use by another program; stop it, or set PORT (--port) to another.`,
        )
      : err;
  });
  const base = publicBase(config, address);
  process.stdout.write(
    [
      `selenium-flow ${VERSION} serving`,
      `  MCP:      ${base}/mcp?workspace=${BANNER_WORKSPACE} (the workspace keeps the browser; plain /mcp: a session_id each)`,
      `  REST:     ${base}/openapi.json (send X-Workspace: ${BANNER_WORKSPACE} to keep a browser)`,
      `  Grid:     ${embedded ? `embedded${embedded.isolated ? `, browsers run as ${GRID_USER}` : ''}` : withoutCredentials(gridUrl)}`,
      `  Fence:    ${(embedded?.fence ?? EXTERNAL_FENCE).summary}`,
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
  onExit(async () => {
    const closing = server.close();
    // Calls still running after a short grace (one may be stuck on a hung page) are cut off:
    // a shutdown must not wait for them.
    if ((await Promise.race([closing.then(() => true), delay(SHUTDOWN_GRACE_MS, false)])) === false) {
      server.app.server.closeAllConnections();
      await Promise.race([closing, delay(1_000)]);
    }
    await embedded?.stop();
  });
}

async function serveOverStdio(
  config: Config,
  gridUrl: string,
  embedded: EmbeddedGrid | undefined,
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
  const handle = serveStdio(() =>
    buildMcpServer(parts.deps, STDIO_CALLER, { version: VERSION, tools, log, flowTools, connection: true, noGrid }),
  );
  const stop = async () => {
    await handle.close();
    await parts.close();
    await embedded?.stop();
  };
  process.stdin.on('end', () => void stop().then(() => process.exit(0)));
  onExit(stop);
}

/** How long in-flight calls may finish after SIGTERM, and how long the whole shutdown may take. */
const SHUTDOWN_GRACE_MS = 3_000;
const SHUTDOWN_LIMIT_MS = 8_000;

function onExit(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) {
      return;
    }
    stopping = true;
    // Whatever still holds the process after this (a store or Grid that does not answer) is abandoned.
    setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS).unref();
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
