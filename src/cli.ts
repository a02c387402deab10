#!/usr/bin/env node
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { setTimeout as delay } from 'node:timers/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, flagOptions, loadConfig, publicBase, settingsHelp, type Config } from './config.js';
import { GRID_USER, startEmbeddedGrid, startHubAndNodes, type EmbeddedGrid } from './grid/embedded.js';
import { withoutCredentials } from './grid/grid.js';
import { buildMcpServer } from './mcp/server.js';
import { listedTools } from './mcp/tools.js';
import { openParts, openServer } from './server.js';
import { VERSION } from './version.js';
import { redisWhere } from './workspace/redis-url.js';
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

Without GRID_URL, serve and stdio start an embedded Grid (Java + Debian chromium) and stop it on exit.
As root, its browsers run as the unprivileged user ${GRID_USER}, fenced off this host's ports.

Settings (flag, env var):
${settingsHelp()}
`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { ...flagOptions(), nodes: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const command = positionals[0];
  if (values.help || !command || !['serve', 'stdio', 'grid'].includes(command)) {
    process.stdout.write(USAGE);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const flags: Record<string, string> = {};
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    if (typeof value === 'string' && name !== 'nodes') {
      flags[name] = value;
    }
  }
  const config = loadConfig(flags);
  if (command === 'grid') {
    const nodes = values.nodes === undefined ? undefined : Number(values.nodes);
    if (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 1 || nodes > 16)) {
      throw new Error('--nodes must be a whole number from 1 to 16 (the nodes behind one hub).');
    }
    const loopbackPorts = config.browserLoopbackPorts;
    const grid = nodes ? await startHubAndNodes({ nodes, loopbackPorts }) : await startEmbeddedGrid({ loopbackPorts });
    const shape = nodes ? ` (hub + ${nodes} node${nodes > 1 ? 's' : ''})` : '';
    // The operator's only way to use this Grid is its URL with the per-boot credentials. A
    // terminal ends up in scrollback, CI logs and screenshots: the URL goes to a file only its
    // owner can read, and the terminal says where.
    const envFile = await writeGridEnvFile(grid.url);
    process.stdout.write(
      `Selenium Grid ready${shape} at ${withoutCredentials(grid.url)}; Ctrl-C stops it.\n` +
        `Its GRID_URL, with this start's credentials, is in ${envFile} (readable only by you): \`set -a; . ${envFile}; set +a\` before \`selenium-flow serve\`.\n`,
    );
    onExit(async () => {
      // First: the Grid's stop may outlast the shutdown limit, and a stale file must not stay.
      await rm(dirname(envFile), { recursive: true, force: true });
      await grid.stop();
    });
    return;
  }
  const embedded = config.gridUrl ? undefined : await startEmbeddedGrid({ loopbackPorts: config.browserLoopbackPorts });
  const gridUrl = config.gridUrl ?? embedded?.url ?? '';
  if (command === 'stdio') {
    await serveOverStdio(config, gridUrl, embedded);
  } else {
    await serveOverHttp(config, gridUrl, embedded);
  }
}

/** GRID_URL=… in a new private directory (0700) and file (0600): the credentials change at every start. */
async function writeGridEnvFile(gridUrl: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'selenium-flow-grid-url-'));
  const file = join(dir, 'grid.env');
  await writeFile(file, `GRID_URL=${gridUrl}\n`, { mode: 0o600 });
  return file;
}

async function serveOverHttp(config: Config, gridUrl: string, embedded: EmbeddedGrid | undefined): Promise<void> {
  const server = await openServer(config, gridUrl);
  const address = await server.app.listen({ host: config.host, port: config.port });
  const base = publicBase(config, address);
  process.stdout.write(
    [
      `selenium-flow ${VERSION} serving`,
      `  MCP:      ${base}/mcp`,
      `  REST:     ${base}/openapi.json`,
      `  Grid:     ${embedded ? `embedded${embedded.isolated ? `, browsers run as ${GRID_USER}` : ''}` : withoutCredentials(gridUrl)}`,
      `  Data:     ${config.dataDir ?? 'off (set FLOW_DATA_DIR for flows and files)'}`,
      `  Store:    ${config.sessionStore === 'redis' ? `redis at ${redisWhere(config.redisUrl ?? '')}` : 'memory (this process only)'}`,
      ...accessLines(config),
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

/**
 * Whether tokens are set, from booleans only: a banner ends up in terminals, CI logs and
 * screenshots, so no token value is ever within reach of its template.
 */
function accessLines(config: Config): string[] {
  const bearer = config.authToken !== undefined;
  const tokensFile = config.tokensFile !== undefined;
  const admin = config.adminToken !== undefined || bearer;
  return [
    `  Token:    ${bearer ? 'set' : 'none (loopback only)'}${tokensFile ? ' + TOKENS_FILE' : ''}`,
    `  Admin:    ${admin ? 'token set' : 'closed (set ADMIN_TOKEN)'}`,
  ];
}

async function serveOverStdio(config: Config, gridUrl: string, embedded: EmbeddedGrid | undefined): Promise<void> {
  // stdout is the protocol channel here: nothing else may write to it.
  const parts = await openParts(config, gridUrl);
  const tools = listedTools(config.mirrorTools === 'on');
  const log = (err: unknown) =>
    process.stderr.write(`selenium-flow: tool call failed (${err instanceof Error ? err.name : typeof err})\n`);
  const flowTools = { enabled: config.flowTools === 'on', max: config.flowToolsMax };
  const handle = serveStdio(() =>
    buildMcpServer(parts.deps, STDIO_CALLER, { version: VERSION, tools, log, flowTools, connection: true }),
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
