/**
 * `npm run bench`: the reference 12-step task (/work/shared/spec/performance.md) as a raw
 * selenium-webdriver script and as twelve MCP calls (Streamable HTTP and stdio) on one
 * embedded Grid, interleaved round-robin; then what a model reads (tools/list, the task's
 * text, the heavy page's outline), where the MCP time goes, cold start and idle memory.
 * Prints Markdown tables; `--json <file>` also writes every number.
 */
import './lib/offline.js';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { BrowserKind } from '../src/grid/capabilities.js';
import { BARS, bars } from './lib/bars.js';
import { runBench, withTimeout, type Cleanup } from './lib/cleanup.js';
import { FIREFOX_WORKSPACE, REPO, HTTP_WORKSPACE, startBench, versions, type BenchEnv } from './lib/env.js';
import { DirectToolCaller, McpToolCaller, PROTOCOL } from './lib/mcp.js';
import { measureBootCosts, measureColdStart, measureOutline, measureToolsList, serverEntry } from './lib/measures.js';
import { profileMcpHttp } from './lib/profile.js';
import { rawConfiguration, rawId } from './lib/raw.js';
import { markdownTable, ms, summarize } from './lib/stats.js';
import { checkAnswers, type Configuration, type TaskRun } from './lib/task.js';
import { CapturingCaller, toolsConfiguration } from './lib/tools-task.js';
import { flowConfiguration } from './lib/flow-task.js';
import { coldConfiguration } from './lib/cold-task.js';
import { coldOpensTable, measureColdOpens } from './lib/cold-opens.js';
import { measureOpenPairs, openPairsTable } from './lib/open-pairs.js';
import { printBoot, printCold, printOutline, printProfile, printToolsList } from './lib/reading-tables.js';
import {
  out,
  printBrowsers,
  printCapture,
  printColdStarts,
  printHeadToHead,
  printHeader,
  printTiming,
  printTokens,
  timingRows,
  tokens,
  type HeadToHead,
  type Results,
} from './lib/task-tables.js';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'profile-rounds': { type: 'string', default: '3' },
    'cold-runs': { type: 'string', default: '5' },
    pairs: { type: 'string', default: '10' },
    // rounds of opening a browser alone: raw, ours, raw without BiDi (bench/lib/open-pairs.ts)
    'open-rounds': { type: 'string', default: '8' },
    json: { type: 'string' },
    // only the two configurations capture compares, then stop
    'capture-only': { type: 'boolean', default: false },
    // the browsers timed: the raw script and 12 MCP calls (HTTP) on each; Chromium alone runs every configuration
    browsers: { type: 'string', default: 'chrome,firefox' },
    // only the raw script and 12 MCP calls (HTTP) on each browser, then stop
    'browsers-only': { type: 'boolean', default: false },
    'timeout-minutes': { type: 'string', default: '30' },
  },
});

const positive = (name: string, value: string | undefined): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) {
    throw new Error(`--${name} must be a whole number from 1 to 100 (got ${value})`);
  }
  return n;
};

const ROUNDS = positive('rounds', options.rounds);
const PROFILE_ROUNDS = positive('profile-rounds', options['profile-rounds']);
const COLD_RUNS = positive('cold-runs', options['cold-runs']);
const PAIRS = positive('pairs', options.pairs);
const OPEN_ROUNDS = positive('open-rounds', options['open-rounds']);
const TIMEOUT_MINUTES = positive('timeout-minutes', options['timeout-minutes']);
const RUN_TIMEOUT_MS = 120_000;
const BROWSERS = browsersAsked(options.browsers);

function browsersAsked(value: string | undefined): BrowserKind[] {
  const asked = (value ?? '').split(',').map((b) => b.trim());
  const known = asked.filter((b): b is BrowserKind => b === 'chrome' || b === 'firefox');
  if (known.length !== asked.length || !known.includes('chrome')) {
    throw new Error(`--browsers must be chrome or chrome,firefox (got ${value}): Chromium is every ratio's baseline`);
  }
  return [...new Set(known)];
}

const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

// ---------------------------------------------------------------- configurations

function configurations(env: BenchEnv, cleanup: Cleanup): Configuration[] {
  const entry = serverEntry(REPO);
  const cold = { gridUrl: env.gridUrl, siteUrl: env.siteUrl, dataDir: env.coldDataDir };
  const direct = new DirectToolCaller(env.http.server.deps, { key: 'named:bench-direct', workspace: 'bench-direct' });
  const http = new McpToolCaller(env.http.client);
  const stdio = new McpToolCaller(env.stdio.client);
  return [
    rawConfiguration(env.gridUrl, env.siteUrl, 'script', 'chrome', env.capabilities.chrome),
    rawConfiguration(env.gridUrl, env.siteUrl, 'per-row', 'chrome', env.capabilities.chrome),
    toolsConfiguration('direct', 'selenium-flow callTool in process (no MCP)', () => direct, env.siteUrl, true),
    toolsConfiguration('mcp-http', `12 MCP calls, Streamable HTTP (${PROTOCOL})`, () => http, env.siteUrl),
    toolsConfiguration('mcp-stdio', `12 MCP calls, stdio (${PROTOCOL})`, () => stdio, env.siteUrl),
    coldConfiguration('stdio', entry, cold, cleanup),
    coldConfiguration('serve', entry, cold, cleanup),
    toolsConfiguration(
      'mcp-http-capture',
      `12 MCP calls, Streamable HTTP, capture_network on`,
      () => new CapturingCaller(http),
      env.siteUrl,
      true,
    ),
    flowConfiguration(
      'flow',
      'one flow (run_flow over Streamable HTTP) + end_browser',
      () => http,
      env.siteUrl,
      (name) => readFile(join(env.dataDir, HTTP_WORKSPACE, 'screenshots', name)),
    ),
    ...firefoxConfigurations(env),
  ];
}

/** The same task on Firefox, on the same Grid: its floor, and the 12 calls measured against it. */
function firefoxConfigurations(env: BenchEnv): Configuration[] {
  const client = env.firefoxClient;
  if (!client) {
    return [];
  }
  const http = new McpToolCaller(client);
  const calls = toolsConfiguration(
    'mcp-http-firefox',
    '12 MCP calls, Streamable HTTP, Firefox',
    () => http,
    env.siteUrl,
  );
  return [
    rawConfiguration(env.gridUrl, env.siteUrl, 'script', 'firefox', env.capabilities.firefox),
    {
      ...calls,
      baseline: rawId('firefox'),
      run: async (beforeStep) => {
        const run = await calls.run(beforeStep);
        // A wrong browser would be a fast wrong answer: the workspace must still be opening Firefox.
        const record = await env.http.server.store.get(`named:${FIREFOX_WORKSPACE}`);
        if (record?.browser !== 'firefox') {
          throw new Error(`${calls.label} ran on ${record?.browser ?? 'nothing'}`);
        }
        return run;
      },
    },
  ];
}

/** What --browsers-only times: the raw script and the 12 MCP calls over HTTP, on each browser. */
const BROWSER_IDS = new Set(['raw', 'mcp-http', 'raw-firefox', 'mcp-http-firefox']);

async function runRounds(configs: Configuration[], siteUrl: string): Promise<Results> {
  const runs = new Map<string, TaskRun[]>(configs.map((c) => [c.id, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    // Round-robin, and the starting configuration rotates, so none always runs first.
    const order = configs.map((_, i) => configs[(i + round) % configs.length] as Configuration);
    const line: string[] = [];
    for (const config of order) {
      const run = await withTimeout(`${config.label}, round ${round}`, RUN_TIMEOUT_MS, config.run());
      checkAnswers(config, run.answers, siteUrl);
      if (round > 0) {
        runs.get(config.id)?.push(run);
      }
      line.push(`${config.id} ${ms(run.totalMs)} ms`);
    }
    progress(`${round === 0 ? 'warm-up round (dropped)' : `round ${round}/${ROUNDS}`}: ${line.join(', ')}`);
  }
  return { runs };
}

/**
 * The flow's bar is against the raw script alone, so it is also measured head to head: raw and
 * flow alone, which goes first alternating. In the rounds' rotation the flow runs just before raw
 * in five rounds of six, always right after the stdio configuration: the order never alternates.
 */
async function runHeadToHead(configs: Configuration[], siteUrl: string): Promise<HeadToHead | undefined> {
  const raw = configs.find((c) => c.id === 'raw');
  const flow = configs.find((c) => c.id === 'flow');
  if (!raw || !flow) {
    return undefined;
  }
  const rawTotals: number[] = [];
  const flowTotals: number[] = [];
  const runInto = async (config: Configuration, totals: number[], pair: number) => {
    const run = await withTimeout(`${config.label}, pair ${pair + 1}`, RUN_TIMEOUT_MS, config.run());
    checkAnswers(config, run.answers, siteUrl);
    totals.push(run.totalMs);
  };
  for (let pair = 0; pair < PAIRS; pair++) {
    if (pair % 2) {
      await runInto(flow, flowTotals, pair);
      await runInto(raw, rawTotals, pair);
    } else {
      await runInto(raw, rawTotals, pair);
      await runInto(flow, flowTotals, pair);
    }
  }
  const ratios = flowTotals.map((t, i) => t / (rawTotals[i] ?? Number.NaN));
  progress(`head to head, ${PAIRS} pairs: flow / raw ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  return { raw: summarize(rawTotals), flow: summarize(flowTotals), paired: summarize(ratios) };
}

// ---------------------------------------------------------------- main

async function main(cleanup: Cleanup): Promise<void> {
  const v = versions();
  const env = await startBench(cleanup, BROWSERS);
  printHeader(v, env);

  const all = configurations(env, cleanup);
  const configs = options['capture-only']
    ? all.filter((c) => c.id === 'mcp-http' || c.id === 'mcp-http-capture')
    : options['browsers-only']
      ? all.filter((c) => BROWSER_IDS.has(c.id))
      : all;
  const results = await runRounds(configs, env.siteUrl);
  if (options['capture-only']) {
    printCapture(results, BARS.captureVsOff);
    return;
  }
  const rows = timingRows(configs, results);
  printTiming(rows, ROUNDS);
  printColdStarts(rows, results);
  printBrowsers(rows, env);
  if (options['browsers-only']) {
    return;
  }
  printCapture(results, BARS.captureVsOff);
  progress(`raw script and flow head to head (${PAIRS} pairs)`);
  const h2h = await runHeadToHead(configs, env.siteUrl);
  if (h2h) {
    printHeadToHead(h2h, PAIRS);
  }
  progress(`opening a browser alone (${OPEN_ROUNDS} rounds of raw, ours, raw without BiDi)`);
  const opens = await measureOpenPairs(
    env.gridUrl,
    env.siteUrl,
    new McpToolCaller(env.http.client),
    OPEN_ROUNDS,
    env.capabilities.chrome,
  );
  out(`### Opening a browser and loading the first page, ${OPEN_ROUNDS} rounds (rotating, after a warm-up round)`);
  out();
  out(openPairsTable(opens));
  out();
  progress(`a fresh process's first browser (${OPEN_ROUNDS} rounds of raw, stdio, serve)`);
  const coldOpens = await measureColdOpens(
    serverEntry(REPO),
    { gridUrl: env.gridUrl, siteUrl: env.siteUrl, dataDir: env.coldDataDir },
    env.capabilities.chrome,
    OPEN_ROUNDS,
    cleanup,
  );
  out(coldOpensTable(coldOpens, OPEN_ROUNDS));
  out();
  const t = tokens(results, env.siteUrl);
  printTokens(t, env.siteUrl);

  progress('measuring tools/list and the outline');
  const list = await measureToolsList(env.http.client);
  printToolsList(list);
  const o = await measureOutline(env.http.url, env.siteUrl, cleanup);
  printOutline(o);

  progress(`profiling the MCP path (${PROFILE_ROUNDS} rounds)`);
  const profile = await profileMcpHttp(env.gridUrl, env.siteUrl, PROFILE_ROUNDS, env.stdio.client, cleanup);
  printProfile(profile);

  progress(`cold starts (${COLD_RUNS} × serve, ${COLD_RUNS} × stdio)`);
  const entry = serverEntry(REPO);
  const cold = await measureColdStart(REPO, entry, env.gridUrl, env.siteUrl, COLD_RUNS, cleanup);
  printCold(cold);
  const boot = entry.label.startsWith('node dist') ? measureBootCosts(REPO, COLD_RUNS) : undefined;
  if (boot) {
    printBoot(boot, COLD_RUNS);
  }

  out(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min).`,
  );
  out();
  out('### Against the bars of performance.md');
  out();
  const b = bars(rows, h2h, t, list, o, cold, opens, coldOpens);
  out(
    markdownTable(
      ['measure', 'bar', 'measured', ''],
      b.map((x) => [x.measure, x.bar, x.measured, x.met]),
    ),
  );
  out();

  if (options.json) {
    const runs = Object.fromEntries(results.runs);
    writeFileSync(
      options.json,
      JSON.stringify(
        {
          versions: v,
          rounds: ROUNDS,
          runs,
          headToHead: h2h,
          tokens: t,
          toolsList: list,
          outline: o,
          profile,
          cold,
          boot,
          bars: b,
        },
        replacer,
        2,
      ),
    );
    progress(`wrote ${options.json}`);
  }
}

/** Buffers (the screenshots) are long and say nothing in JSON: their size is enough. */
function replacer(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
    return `<${((value as { data?: unknown[] }).data ?? []).length} bytes>`;
  }
  return value;
}

runBench(main, TIMEOUT_MINUTES);
