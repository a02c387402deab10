/**
 * `npm run bench:cold`: spawn → `tools/list` answered over stdio, selenium-flow against
 * Playwright MCP (the devDependency, with /usr/bin/chromium, which it launches only for a
 * tool call, never to list tools), alternating run by run so neither always meets the warmer
 * page cache. Prints min / median / max of each and the ratio of the medians (issue 17's bar:
 * ≤ 0.85×). `--node <path>` runs both with another Node (22.1+ has the module compile cache,
 * which our CLI turns on; its first start fills the cache, and the warm-up round pays for that).
 *
 * selenium-flow is `node dist/cli.js stdio` (built first when dist/ is stale). It does not
 * reach the Grid before a tool call, so GRID_URL may be any address (the default names no
 * server); set GRID_URL to measure against a running Grid.
 */
import './lib/offline.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runBench, type Cleanup } from './lib/cleanup.js';
import { coldStdioStart, moduleBuild, serverEntry, type SpawnedServer } from './lib/measures.js';
import { markdownTable, ratio, summarize, triple } from './lib/stats.js';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    // another Node for both servers (e.g. 22, which has the module compile cache)
    node: { type: 'string', default: process.execPath },
    // fresh processes for the breakdown of our start (0: none)
    breakdown: { type: 'string', default: '7' },
  },
});
const RUNS = Number(options.runs);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 100) {
  throw new Error(`--runs must be a whole number from 1 to 100 (got ${options.runs})`);
}

const REPO = fileURLToPath(new URL('../', import.meta.url));

/** The bar: our median at most this share of Playwright MCP's, in the same run. */
const BAR = 0.85;

function servers(dataDir: string): { name: string; server: SpawnedServer }[] {
  const entry = serverEntry(REPO);
  const playwright = join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  return [
    {
      name: `selenium-flow (${entry.label} stdio)`,
      server: {
        command: entry.command === process.execPath ? options.node : entry.command,
        args: [...entry.args, 'stdio'],
        cwd: REPO,
        env: {
          GRID_URL: process.env.GRID_URL ?? 'http://127.0.0.1:9',
          FLOW_DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          SE_OFFLINE: 'true',
          SE_AVOID_STATS: 'true',
        },
      },
    },
    {
      name: '@playwright/mcp (--headless --isolated, chromium)',
      server: {
        command: options.node,
        args: [playwright, '--headless', '--isolated', '--browser', 'chromium', '--executable-path', options.chromium],
        cwd: REPO,
        env: {},
      },
    },
  ];
}

/**
 * Where our stdio start goes, in the order `selenium-flow stdio` loads it: a fresh `node` (with
 * the compile cache the CLI turns on) importing each step, compiled module by module (moduleBuild:
 * dist/ is one bundle), and timing it. A module
 * shared by two steps is charged to the first. The rows add up to a start, less the process spawn
 * and the JSON-RPC round trips.
 */
const BREAKDOWN_SCRIPT = `
import module from 'node:module';
module.enableCompileCache?.(process.env.CACHE_DIR);
const rows = [['Node itself (process start → first line of a script)', performance.now()]];
const time = async (name, work) => { const s = performance.now(); const r = await work(); rows.push([name, performance.now() - s]); return r; };
const mod = (path) => import(new URL(path, 'file://' + process.env.MODULES + '/').href);
await time('zod', () => import('zod'));
await time('the MCP SDK (@modelcontextprotocol/server, its stdio transport)', async () => { await import('@modelcontextprotocol/server'); await import('@modelcontextprotocol/server/stdio'); });
const { loadConfig } = await time('cli.js → commands.js, config.js', async () => { await mod('package.js'); return mod('config.js'); });
await time('the capability table (capabilities/, browser/ without selenium-webdriver)', () => mod('capabilities/index.js'));
const tools = await time('mcp/tools.js, mcp/server.js (resources, the call path)', async () => { const t = await mod('mcp/tools.js'); await mod('mcp/server.js'); return t; });
const { openParts } = await time('parts.js (workspaces, grid, live, files, secrets, flows, admin)', () => mod('parts.js'));
await time('render tools/list (zod → JSON Schema)', async () => tools.listedTools(true));
await time('loadConfig + openParts', () => openParts(loadConfig({}, { GRID_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'silent', FLOW_DATA_DIR: process.env.DATA_DIR }, { command: 'stdio' }), 'http://127.0.0.1:9'));
console.log(JSON.stringify(rows));
`;

function breakdown(runs: number, dataDir: string): string[][] {
  const samples: [string, number][][] = [];
  const modules = moduleBuild(REPO);
  const cache = mkdtempSync(join(tmpdir(), 'selenium-flow-cold-cache-'));
  try {
    // One more than counted: the first fills the compile cache (Node 22.1+).
    for (let i = 0; i <= runs; i++) {
      const result = spawnSync(options.node, ['--input-type=module', '-e', BREAKDOWN_SCRIPT], {
        cwd: REPO,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          CACHE_DIR: cache,
          DATA_DIR: dataDir,
          MODULES: modules,
        },
      });
      const line = result.stdout.trim().split('\n').at(-1);
      if (result.status !== 0 || !line) {
        process.stderr.write(`bench: the breakdown failed: ${result.stderr.slice(-1000)}\n`);
        return [];
      }
      if (i > 0) {
        samples.push(JSON.parse(line) as [string, number][]);
      }
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return (samples[0] ?? []).map(([step], i) => [
    step,
    summarize(samples.map((s) => s[i]?.[1] ?? Number.NaN)).median.toFixed(0),
  ]);
}

function nodeVersion(): string {
  return spawnSync(options.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

async function main(cleanup: Cleanup): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'selenium-flow-cold-'));
  cleanup.add('cold-start data dir', async () => rmSync(dataDir, { recursive: true, force: true }));
  const measured = servers(dataDir).map((s) => ({ ...s, samples: [] as number[] }));
  // One warm-up round each, not counted: the first spawn pays for the disk cache.
  for (const s of measured) {
    await coldStdioStart(s.server, cleanup);
  }
  for (let run = 0; run < RUNS; run++) {
    for (const s of run % 2 === 0 ? measured : [...measured].reverse()) {
      s.samples.push(await coldStdioStart(s.server, cleanup));
    }
    process.stderr.write(`bench: cold start round ${run + 1}/${RUNS}\n`);
  }
  const [ours, theirs] = measured.map((s) => ({ ...s, summary: summarize(s.samples) }));
  if (!ours || !theirs) {
    return;
  }
  const share = ours.summary.median / theirs.summary.median;
  process.stdout.write(
    [
      `### Cold start over stdio (Node ${nodeVersion()}), spawn → tools/list answered, ${RUNS} runs each (after one warm-up), ms: min / **median** / max`,
      '',
      markdownTable(
        ['server', 'spawn → tools/list'],
        [ours, theirs].map((s) => [s.name, triple(s.summary)]),
        ['l', 'r'],
      ),
      '',
      `selenium-flow ÷ Playwright MCP, medians: **${ratio(share)}** (bar ≤ ${ratio(BAR)}: ${share <= BAR ? 'met' : '**not met**'}).`,
      `Run by run, ms: selenium-flow ${ours.samples.map((v) => v.toFixed(0)).join(', ')}; Playwright MCP ${theirs.samples.map((v) => v.toFixed(0)).join(', ')}.`,
      '',
    ].join('\n'),
  );
  const steps = Number(options.breakdown);
  const rows = steps > 0 ? breakdown(steps, dataDir) : [];
  if (rows.length > 0) {
    process.stdout.write(
      [
        `Where our start goes (fresh \`node\` importing src/ compiled module by module, step by step, median of ${steps}), ms:`,
        '',
        markdownTable(['step', 'ms'], rows, ['l', 'r']),
        '',
      ].join('\n'),
    );
  }
}

runBench(main, 10);
