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
import { capabilityNamed } from '../src/capabilities/index.js';
import type { BrowserKind } from '../src/grid/capabilities.js';
import { runBench, withTimeout, type Cleanup } from './lib/cleanup.js';
import {
  FIREFOX_WORKSPACE,
  REPO,
  HTTP_WORKSPACE,
  startBench,
  versions,
  type BenchEnv,
  type Versions,
} from './lib/env.js';
import { DirectToolCaller, McpToolCaller, PROTOCOL } from './lib/mcp.js';
import {
  measureBootCosts,
  measureColdStart,
  measureOutline,
  measureToolsList,
  serverEntry,
  type BootCosts,
  type ColdStart,
  type OutlineSize,
  type ToolsListSize,
} from './lib/measures.js';
import { profileMcpHttp, type ProfileReport } from './lib/profile.js';
import { rawConfiguration, rawId } from './lib/raw.js';
import { bytes, markdownTable, median, ms, ms1, ratio, summarize, triple, type Summary } from './lib/stats.js';
import { STEPS, checkAnswers, type Configuration, type TaskRun } from './lib/task.js';
import { CapturingCaller, toolsConfiguration, twelveCalls } from './lib/tools-task.js';
import { flowConfiguration } from './lib/flow-task.js';
import { measureOpenPairs, openOverhead, openPairsTable, type OpenPairs } from './lib/open-pairs.js';

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

/** The bars of performance.md. */
const BARS = {
  mcpVsRaw: 1.05,
  // open_session (+ first page) over a raw session + get, paired median, ms
  openOverMs: 30,
  captureVsOff: 1.1,
  flowVsRaw: 1.05,
  // issue 17: the leanest peer's total, counted as tokens; the spec's older bar is bytes / 4
  taskTokens: 785,
  taskBytesOver4: 630,
  outlineBytes: 10_900,
  toolsListBytes: 12_000,
  coldStartMs: 500,
  idleRssBytes: 120 * 1_000_000,
};

const out = (text = '') => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

// ---------------------------------------------------------------- configurations

function configurations(env: BenchEnv): Configuration[] {
  const direct = new DirectToolCaller(env.http.server.deps, { key: 'named:bench-direct', workspace: 'bench-direct' });
  const http = new McpToolCaller(env.http.client);
  const stdio = new McpToolCaller(env.stdio.client);
  return [
    rawConfiguration(env.gridUrl, env.siteUrl, 'script'),
    rawConfiguration(env.gridUrl, env.siteUrl, 'per-row'),
    toolsConfiguration('direct', 'selenium-flow callTool in process (no MCP)', () => direct, env.siteUrl, true),
    toolsConfiguration('mcp-http', `12 MCP calls, Streamable HTTP (${PROTOCOL})`, () => http, env.siteUrl),
    toolsConfiguration('mcp-stdio', `12 MCP calls, stdio (${PROTOCOL})`, () => stdio, env.siteUrl),
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
    rawConfiguration(env.gridUrl, env.siteUrl, 'script', 'firefox'),
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

interface Results {
  /** per configuration id, the kept rounds (the warm-up round is dropped) */
  runs: Map<string, TaskRun[]>;
}

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

interface HeadToHead {
  raw: Summary;
  flow: Summary;
  /** flow ÷ raw, pair by pair */
  paired: Summary;
}

// ---------------------------------------------------------------- report

interface TimingRow {
  config: Configuration;
  total: Summary;
  steps2to11: Summary;
  ratio: number;
  pairedRatio: number;
  perStep: Summary[];
}

function timingRows(configs: Configuration[], results: Results): TimingRow[] {
  const totals = (id: string) => (results.runs.get(id) ?? []).map((r) => r.totalMs);
  return configs.map((config) => {
    const runs = results.runs.get(config.id) ?? [];
    const mine = runs.map((r) => r.totalMs);
    // Each configuration against the raw script on its own browser.
    const rawTotals = totals(config.baseline ?? 'raw');
    return {
      config,
      total: summarize(mine),
      // NaN where a configuration does not time single steps (one flow).
      steps2to11: summarize(
        runs
          .map((r) => r.stepMs.slice(1, 11).reduce((a: number, b) => a + (b ?? Number.NaN), 0))
          .filter(Number.isFinite),
      ),
      ratio: summarize(mine).median / median(rawTotals),
      // Raw and this configuration ran back to back in each round: the median of the round ratios
      // is steadier than the ratio of medians on a noisy machine.
      pairedRatio: median(mine.map((t, i) => t / (rawTotals[i] ?? Number.NaN))),
      perStep: STEPS.map((_, i) => summarize(runs.map((r) => r.stepMs[i] ?? Number.NaN).filter(Number.isFinite))),
    };
  });
}

function printHeadToHead(h: HeadToHead): void {
  out(
    `### Raw script and flow head to head, ${PAIRS} pairs (nothing between them, the first alternating), ms: min / **median** / max`,
  );
  out();
  out(
    markdownTable(
      ['configuration', 'total', 'vs raw', 'paired (min–max)'],
      [
        ['raw selenium-webdriver (floor)', triple(h.raw), ratio(1), ratio(1)],
        [
          'one flow (run_flow) + end_browser',
          triple(h.flow),
          ratio(h.flow.median / h.raw.median),
          `${ratio(h.paired.median)} (${ratio(h.paired.min)}–${ratio(h.paired.max)})`,
        ],
      ],
      ['l', 'r', 'r', 'r'],
    ),
  );
  out();
}

function printTiming(rows: TimingRow[]): void {
  out(`### The 12-step task, ${ROUNDS} rounds (after one warm-up round), ms: min / **median** / max`);
  out();
  out(
    markdownTable(
      ['configuration', 'total', 'vs raw', 'paired', 'steps 2–11', 'vs raw'],
      rows.map((r) => {
        const floor = rows.find((f) => f.config.id === (r.config.baseline ?? 'raw'));
        const rawSteps = floor?.steps2to11.median ?? Number.NaN;
        return [
          r.config.informational ? `_${r.config.label}_` : r.config.label,
          triple(r.total),
          ratio(r.ratio),
          ratio(r.pairedRatio),
          triple(r.steps2to11),
          ratio(r.steps2to11.median / rawSteps),
        ];
      }),
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  out();
  out(
    '"vs raw": ratio of medians, against the raw script on the same browser. "paired": median over rounds of (this run / that raw run of the same round).',
  );
  out('"steps 2–11": the task without opening and closing the browser (session creation dominates and varies most).');
  out();
  out('### Per step, ms: min / **median** / max');
  out();
  out(
    markdownTable(
      ['#', 'step', ...rows.map((r) => r.config.id)],
      STEPS.map((step, i) => [String(i + 1), step, ...rows.map((r) => triple(r.perStep[i] ?? summarize([])))]),
      ['r', 'l', ...rows.map(() => 'r' as const)],
    ),
  );
  out();
}

/** The ratio that matters per browser: 12 MCP calls over HTTP against the raw script on that browser. */
function printBrowsers(rows: TimingRow[], env: BenchEnv): void {
  const row = (id: string) => rows.find((r) => r.config.id === id);
  const lines = env.browsers.flatMap((browser) => {
    const raw = row(rawId(browser));
    const http = row(browser === 'chrome' ? 'mcp-http' : `mcp-http-${browser}`);
    return raw && http
      ? [
          [
            browser === 'chrome' ? 'Chromium' : 'Firefox',
            triple(raw.total),
            triple(http.total),
            ratio(http.ratio),
            ratio(http.pairedRatio),
            ratio(http.steps2to11.median / raw.steps2to11.median),
          ],
        ]
      : [];
  });
  if (lines.length === 0) {
    return;
  }
  out('### Each browser: raw selenium-webdriver vs 12 MCP calls (Streamable HTTP), same Grid, same rounds');
  out();
  out(
    markdownTable(
      ['browser', 'raw total, ms', '12 MCP calls total, ms', 'MCP ÷ raw (medians)', 'paired', 'steps 2–11 ÷ raw'],
      lines,
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  out();
  if (env.firefoxMissing) {
    out(`Firefox not timed: ${env.firefoxMissing}`);
    out();
  }
}

interface Tokens {
  perStep: { call: string; argBytes: number; textBytes: number; textTokens: number }[];
  textBytes: number;
  /** counted with gpt-tokenizer (o200k_base, GPT-4o's and GPT-5's encoding) */
  tokens: number;
  /** the spec's older estimate: bytes / 4 */
  bytesOver4: number;
  argBytes: number;
  stdioTextBytes: number;
}

function tokens(results: Results, siteUrl: string): Tokens {
  const http = results.runs.get('mcp-http')?.at(-1);
  const stdio = results.runs.get('mcp-stdio')?.at(-1);
  const calls = twelveCalls(siteUrl);
  const perStep = calls.map((c, i) => ({
    call: `${c.name} ${JSON.stringify(c.args).replace(siteUrl, '')}`,
    argBytes: http?.argBytes?.[i] ?? Number.NaN,
    textBytes: http?.textBytes?.[i] ?? Number.NaN,
    textTokens: http?.textTokens?.[i] ?? Number.NaN,
  }));
  const textBytes = perStep.reduce((a, s) => a + s.textBytes, 0);
  return {
    perStep,
    textBytes,
    tokens: perStep.reduce((a, s) => a + s.textTokens, 0),
    bytesOver4: textBytes / 4,
    argBytes: perStep.reduce((a, s) => a + s.argBytes, 0),
    stdioTextBytes: (stdio?.textBytes ?? []).reduce((a, b) => a + b, 0),
  };
}

function printTokens(t: Tokens, siteUrl: string): void {
  out('### What the model reads: the 12 answers (text blocks; the screenshot image excluded)');
  out();
  out(
    markdownTable(
      ['#', 'call (site URL elided)', 'args B', 'answer text B', 'tokens (o200k)'],
      [
        ...t.perStep.map((s, i) => [
          String(i + 1),
          `\`${s.call}\``,
          bytes(s.argBytes),
          bytes(s.textBytes),
          bytes(s.textTokens),
        ]),
        [
          '',
          '**task**',
          bytes(t.argBytes),
          `**${bytes(t.textBytes)} B** (÷4: ${Math.round(t.bytesOver4)})`,
          `**${bytes(t.tokens)}**`,
        ],
      ],
      ['r', 'l', 'r', 'r', 'r'],
    ),
  );
  out();
  out(
    `Site URL in answers: ${siteUrl} (${siteUrl.length} characters). stdio answered ${bytes(t.stdioTextBytes)} B for the same task.`,
  );
  out();
}

function printToolsList(t: ToolsListSize): void {
  out(
    `### tools/list: ${t.tools} tools, ${bytes(t.toolsBytes)} B (whole result with _meta: ${bytes(t.resultBytes)} B; MIRROR_TOOLS=off: ${bytes(t.withoutMirrorsBytes)} B)`,
  );
  out();
  out(
    markdownTable(
      ['tool', 'bytes', 'description', 'inputSchema', 'name, title, annotations'],
      t.perTool.map((p) => [p.name, bytes(p.bytes), bytes(p.description), bytes(p.inputSchema), bytes(p.rest)]),
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  const sum = (f: (p: ToolsListSize['perTool'][number]) => number) => t.perTool.reduce((a, p) => a + f(p), 0);
  out(
    `| **all** | **${bytes(sum((p) => p.bytes))}** | ${bytes(sum((p) => p.description))} | ${bytes(sum((p) => p.inputSchema))} | ${bytes(sum((p) => p.rest))} |`,
  );
  out();
}

function printOutline(o: OutlineSize): void {
  out(
    `### outline of the heavy page: ${bytes(o.outlineBytes)} B of outline (${bytes(o.textBytes)} B answer text), ${o.lines} lines; ` +
      `${o.selectorsChecked} selectors checked, ${o.badSelectors.length} not unique or broken; ` +
      `${o.formControls - o.missingControls.length}/${o.formControls} form fields and buttons found`,
  );
  if (o.badSelectors.length > 0 || o.missingControls.length > 0) {
    out(
      `bad selectors: ${o.badSelectors.join(', ') || 'none'}; controls without one: ${o.missingControls.join(', ') || 'none'}`,
    );
  }
  out();
}

function printProfile(p: ProfileReport): void {
  out(`### Where the MCP (HTTP) time goes, ${p.rounds} instrumented rounds, median ms per step`);
  out();
  out(
    markdownTable(
      [
        '#',
        'step',
        'raw',
        'MCP',
        'gap',
        'hop',
        'bind',
        'tool',
        'page state',
        'store (ops)',
        'other server',
        'MCP commands: bind → tool → after',
        'raw commands',
      ],
      p.steps.map((s, i) => [
        String(i + 1),
        STEPS[i] ?? '',
        ms1(s.rawMs),
        ms1(s.clientMs),
        ms1(s.clientMs - s.rawMs),
        ms1(s.hopMs),
        ms1(s.bindMs),
        ms1(s.toolMs),
        ms1(s.pageStateMs),
        `${ms1(s.storeMs)} (${s.storeOps})`,
        ms1(s.otherServerMs),
        s.commands,
        s.rawCommands,
      ]),
      ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
    ),
  );
  const total = (f: (s: ProfileReport['steps'][number]) => number) => p.steps.reduce((a, s) => a + f(s), 0);
  out(
    `| | **sum** | ${ms1(total((s) => s.rawMs))} | ${ms1(total((s) => s.clientMs))} | ${ms1(total((s) => s.clientMs - s.rawMs))} | ${ms1(total((s) => s.hopMs))} | ${ms1(total((s) => s.bindMs))} | ${ms1(total((s) => s.toolMs))} | ${ms1(total((s) => s.pageStateMs))} | ${ms1(total((s) => s.storeMs))} | ${ms1(total((s) => s.otherServerMs))} | | |`,
  );
  out();
  out(
    'hop: client round trip minus server time (MCP client, JSON-RPC, loopback HTTP). bind: WebDriver before the tool runs',
  );
  out(
    '(step 1: the browser opened on demand). page state: the url + title read after every acting tool. other server: MCP SDK,',
  );
  out('argument validation, Fastify, JSON.');
  out();
  out(
    `Protocol floor: a tools/call refused at argument validation (no browser) takes ${ms1(p.floorMs.http)} ms over HTTP, ` +
      `${ms1(p.floorMs.stdio)} ms over stdio (median of 25).`,
  );
  out();
  out(
    markdownTable(
      ['work the raw script does not do (median per task)', 'ms'],
      p.avoidable.map((a) => [a.what, ms1(a.ms)]),
      ['l', 'r'],
    ),
  );
  out();
  out(
    markdownTable(
      ['WebDriver command (MCP path)', 'per task', 'median ms'],
      Object.entries(p.commandMedians)
        .sort((a, b) => b[1].count * b[1].medianMs - a[1].count * a[1].medianMs)
        .map(([name, c]) => [name, c.count.toFixed(0), ms1(c.medianMs)]),
      ['l', 'r', 'r'],
    ),
  );
  out();
}

function printCold(c: ColdStart): void {
  out(`### Cold start (Grid already up), ${c.entry}, ${c.samples.serve.length} runs each, ms: min / **median** / max`);
  out();
  out(
    markdownTable(
      ['server', 'spawn → tools/list answered'],
      [
        ['serve (HTTP)', triple(c.serve)],
        ['stdio', triple(c.stdio)],
      ],
      ['l', 'r'],
    ),
  );
  out();
  out(
    `Idle RSS of \`serve\`: ${mib(c.idleRssBytes)} after boot, ${mib(c.afterTaskRssBytes)} after one 12-step task went through it.`,
  );
  out();
}

function printBoot(boot: BootCosts): void {
  out(
    `### Where a cold start goes (fresh \`node\`, each import charged to the first that needs it), median of ${COLD_RUNS} runs`,
  );
  out();
  const chain = boot.filter((b) => !b.part);
  out(
    markdownTable(
      ['phase', 'ms'],
      [
        ...chain.map((b) => [b.step, ms(b.ms)]),
        ['**sum**', `**${ms(chain.reduce((a, b) => a + b.ms, 0))}**`],
        ...boot.filter((b) => b.part).map((b) => [`_measured apart, first call: ${b.step}_`, `_${ms(b.ms)}_`]),
      ],
      ['l', 'r'],
    ),
  );
  out();
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB (${(b / 1e6).toFixed(1)} MB)`;

interface Bar {
  measure: string;
  bar: string;
  measured: string;
  met: string;
}

const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : '**not met**');

function bars(
  rows: TimingRow[],
  h2h: HeadToHead | undefined,
  t: Tokens,
  list: ToolsListSize,
  o: OutlineSize,
  c: ColdStart | undefined,
  opens: OpenPairs,
): Bar[] {
  const row = (id: string) => rows.find((r) => r.config.id === id);
  const http = row('mcp-http');
  const stdio = row('mcp-stdio');
  const firefox = row('mcp-http-firefox');
  const flow = row('flow');
  const flowTool = capabilityNamed('run_flow');
  const outlineOk = o.textBytes <= BARS.outlineBytes && o.badSelectors.length === 0 && o.missingControls.length === 0;
  return [
    {
      measure: '12 MCP calls vs raw, median total (HTTP)',
      bar: `≤ ${BARS.mcpVsRaw.toFixed(2)}×`,
      measured: `${ratio(http?.ratio ?? NaN)} (paired ${ratio(http?.pairedRatio ?? NaN)})`,
      met: verdict((http?.ratio ?? Infinity) <= BARS.mcpVsRaw),
    },
    ...(firefox
      ? [
          {
            measure: '12 MCP calls vs raw, median total (HTTP), Firefox',
            bar: `≤ ${BARS.mcpVsRaw.toFixed(2)}×`,
            measured: `${ratio(firefox.ratio)} (paired ${ratio(firefox.pairedRatio)})`,
            met: verdict(firefox.ratio <= BARS.mcpVsRaw),
          },
        ]
      : []),
    {
      measure: 'open a browser + first page (navigate opening on demand) minus raw build() + get(), paired median',
      bar: `≤ ${BARS.openOverMs} ms`,
      measured: `${ms(openOverhead(opens))} ms`,
      met: verdict(openOverhead(opens) <= BARS.openOverMs),
    },
    {
      measure: '12 MCP calls vs raw, median total (stdio)',
      bar: `≤ ${BARS.mcpVsRaw.toFixed(2)}×`,
      measured: `${ratio(stdio?.ratio ?? NaN)} (paired ${ratio(stdio?.pairedRatio ?? NaN)})`,
      met: verdict((stdio?.ratio ?? Infinity) <= BARS.mcpVsRaw),
    },
    {
      measure: 'one flow (run_flow) vs raw',
      bar: `≤ ${BARS.flowVsRaw.toFixed(2)}×`,
      measured:
        flow && h2h
          ? `head to head ${ratio(h2h.paired.median)} paired (${ratio(h2h.flow.median / h2h.raw.median)} medians); in the rounds ${ratio(flow.ratio)} (paired ${ratio(flow.pairedRatio)}); one model turn (+ end_browser)`
          : flowTool
            ? 'run_flow exists: add its row'
            : 'run_flow not shipped yet',
      // Read head to head, where the order of the two alternates (see runHeadToHead).
      met: verdict(h2h ? h2h.paired.median <= BARS.flowVsRaw : undefined),
    },
    {
      measure: 'text tokens, 12-step task: o200k_base (issue 17: ≤ 785); bytes/4 (spec: ≤ 630)',
      bar: `≤ ${BARS.taskTokens} / ≤ ${BARS.taskBytesOver4}`,
      measured: `${bytes(t.tokens)} (${bytes(t.textBytes)} B, ÷4: ${Math.round(t.bytesOver4)})`,
      met: verdict(t.tokens <= BARS.taskTokens && t.bytesOver4 <= BARS.taskBytesOver4),
    },
    {
      measure: 'outline of the heavy page, every field and button with a working selector',
      bar: `≤ ${bytes(BARS.outlineBytes)} B`,
      measured: `${bytes(o.textBytes)} B answer (${bytes(o.outlineBytes)} B outline); ${o.formControls - o.missingControls.length}/${o.formControls} controls, ${o.badSelectors.length} bad selectors`,
      met: verdict(outlineOk),
    },
    {
      measure: 'tools/list, every tool we ship',
      bar: `≤ ${bytes(BARS.toolsListBytes)} B`,
      measured: `${bytes(list.defaultToolsBytes)} B without flow tools (${bytes(list.toolsBytes)} B with the bench's, ${list.tools} tools)`,
      met: verdict(list.defaultToolsBytes <= BARS.toolsListBytes),
    },
    {
      measure: 'cold start to tools listed (serve / stdio), median',
      bar: `≤ ${BARS.coldStartMs} ms`,
      measured: c ? `${ms(c.serve.median)} ms / ${ms(c.stdio.median)} ms` : '–',
      met: verdict(c ? Math.max(c.serve.median, c.stdio.median) <= BARS.coldStartMs : undefined),
    },
    {
      measure: '8 workspaces in parallel vs 8 raw scripts',
      bar: '≥ 0.9× throughput',
      measured: 'not in this bench: `npm run bench:concurrency`',
      met: verdict(undefined),
    },
    {
      measure: 'idle server memory (RSS)',
      bar: '≤ 120 MB',
      measured: c ? `${mib(c.idleRssBytes)}; after a task ${mib(c.afterTaskRssBytes)}` : '–',
      met: verdict(c ? c.idleRssBytes <= BARS.idleRssBytes : undefined),
    },
  ];
}

function printHeader(v: Versions, env: BenchEnv): void {
  out(`## selenium-flow bench: the 12-step task (${new Date().toISOString().slice(0, 10)})`);
  out();
  out(
    `- machine: ${v.machine}; load average at start ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min)`,
  );
  out(`- Node ${v.node}; ${v.chromium}; ${v.chromedriver}; ${v.seleniumJar} (standalone, embedded); ${v.java}`);
  if (env.browsers.includes('firefox')) {
    out(`- ${v.firefox}; ${v.geckodriver}`);
  }
  out(`- selenium-webdriver ${v.seleniumWebdriver}; @modelcontextprotocol/client ${v.mcpClient} pinned to ${PROTOCOL}`);
  out(
    `- HTTP server in process (workspace \`${HTTP_WORKSPACE}\`, saved mode); stdio server: \`npx tsx src/cli.ts stdio\` (handshake after ${ms(env.stdioConnectMs)} ms)`,
  );
  out();
}

/** Capture on against capture off, both over Streamable HTTP, round by round (they ran in the same rounds). */
function printCapture(results: Results): void {
  const off = (results.runs.get('mcp-http') ?? []).map((r) => r.totalMs);
  const on = (results.runs.get('mcp-http-capture') ?? []).map((r) => r.totalMs);
  if (off.length === 0 || on.length === 0) {
    return;
  }
  const ratios = on.map((t, i) => t / (off[i] ?? Number.NaN));
  out('### Network capture on vs off (12 MCP calls, Streamable HTTP), ms: min / **median** / max');
  out();
  out(
    markdownTable(
      ['capture', 'total', 'on ÷ off'],
      [
        ['off', triple(summarize(off)), ''],
        ['on', triple(summarize(on)), `${ratio(median(ratios))} (bar ≤ ${ratio(BARS.captureVsOff)})`],
      ],
    ),
  );
  out();
  out(`Round by round, on ÷ off: ${ratios.map((r) => r.toFixed(2)).join(', ')}.`);
  out();
}

// ---------------------------------------------------------------- main

async function main(cleanup: Cleanup): Promise<void> {
  const v = versions();
  const env = await startBench(cleanup, BROWSERS);
  printHeader(v, env);

  const all = configurations(env);
  const configs = options['capture-only']
    ? all.filter((c) => c.id === 'mcp-http' || c.id === 'mcp-http-capture')
    : options['browsers-only']
      ? all.filter((c) => BROWSER_IDS.has(c.id))
      : all;
  const results = await runRounds(configs, env.siteUrl);
  if (options['capture-only']) {
    printCapture(results);
    return;
  }
  const rows = timingRows(configs, results);
  printTiming(rows);
  printBrowsers(rows, env);
  if (options['browsers-only']) {
    return;
  }
  printCapture(results);
  progress(`raw script and flow head to head (${PAIRS} pairs)`);
  const h2h = await runHeadToHead(configs, env.siteUrl);
  if (h2h) {
    printHeadToHead(h2h);
  }
  progress(`opening a browser alone (${OPEN_ROUNDS} rounds of raw, ours, raw without BiDi)`);
  const opens = await measureOpenPairs(env.gridUrl, env.siteUrl, new McpToolCaller(env.http.client), OPEN_ROUNDS);
  out(`### Opening a browser and loading the first page, ${OPEN_ROUNDS} rounds (rotating, after a warm-up round)`);
  out();
  out(openPairsTable(opens));
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
    printBoot(boot);
  }

  out(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min).`,
  );
  out();
  out('### Against the bars of performance.md');
  out();
  const b = bars(rows, h2h, t, list, o, cold, opens);
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
