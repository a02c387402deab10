import { loadavg } from 'node:os';
import { HTTP_WORKSPACE, type BenchEnv, type Versions } from './env.js';
import { PROTOCOL } from './mcp.js';
import { bytes, markdownTable, median, ms, ratio, summarize, triple, type Summary } from './stats.js';
import { rawId } from './raw.js';
import { STEPS, type Configuration, type TaskRun } from './task.js';
import { twelveCalls } from './tools-task.js';

/** The 12-step task's own tables: its rounds, per step, per browser, capture, and what a model reads. */

export const out = (text = '') => process.stdout.write(`${text}\n`);

export interface Results {
  /** per configuration id, the kept rounds (the warm-up round is dropped) */
  runs: Map<string, TaskRun[]>;
}

export interface HeadToHead {
  raw: Summary;
  flow: Summary;
  /** flow ÷ raw, pair by pair */
  paired: Summary;
}

export interface TimingRow {
  config: Configuration;
  total: Summary;
  steps2to11: Summary;
  ratio: number;
  pairedRatio: number;
  perStep: Summary[];
}

export function timingRows(configs: Configuration[], results: Results): TimingRow[] {
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

/** Whether a configuration timed its steps one by one (a flow runs them in one call). */
function timesSteps(row: TimingRow): boolean {
  return row.perStep.some((s) => Number.isFinite(s.median));
}

export function printHeadToHead(h: HeadToHead, pairs: number): void {
  out(
    `### Raw script and flow head to head, ${pairs} pairs (nothing between them, the first alternating), ms: min / **median** / max`,
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

export function printTiming(rows: TimingRow[], rounds: number): void {
  out(`### The 12-step task, ${rounds} rounds (after one warm-up round), ms: min / **median** / max`);
  out();
  out(
    markdownTable(
      ['configuration', 'total', 'vs raw', 'paired', 'steps 2–11', 'vs raw'],
      rows.map((r) => {
        const floor = rows.find((f) => f.config.id === (r.config.baseline ?? 'raw'));
        const rawSteps = floor?.steps2to11.median ?? Number.NaN;
        const stepped = timesSteps(r);
        return [
          r.config.informational ? `_${r.config.label}_` : r.config.label,
          triple(r.total),
          ratio(r.ratio),
          ratio(r.pairedRatio),
          stepped ? triple(r.steps2to11) : 'one call: not timed apart',
          stepped ? ratio(r.steps2to11.median / rawSteps) : '',
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
  // A configuration that runs the task as one call (a flow) has no step of its own to show: a
  // column of dashes would read as a table that came out empty.
  const stepped = rows.filter(timesSteps);
  const unstepped = rows.filter((r) => !timesSteps(r)).map((r) => r.config.id);
  out('### Per step, ms: min / **median** / max');
  out();
  out(
    markdownTable(
      ['#', 'step', ...stepped.map((r) => r.config.id)],
      STEPS.map((step, i) => [String(i + 1), step, ...stepped.map((r) => triple(r.perStep[i] ?? summarize([])))]),
      ['r', 'l', ...stepped.map(() => 'r' as const)],
    ),
  );
  out();
  if (unstepped.length > 0) {
    out(`Not in this table (the task in one call, its steps not timed apart): ${unstepped.join(', ')}.`);
    out();
  }
}

/**
 * The rows that start a new server each round: the client's start (spawn → tools/list), not in
 * their totals, and step 1 (opening the browser) against the warm servers' and the raw script's.
 */
export function printColdStarts(rows: TimingRow[], results: Results): void {
  const cold = rows.filter((r) => (results.runs.get(r.config.id) ?? []).some((run) => run.startMs !== undefined));
  if (cold.length === 0) {
    return;
  }
  const step1 = (id: string) => (results.runs.get(id) ?? []).map((r) => r.stepMs[0] ?? Number.NaN);
  const raw = step1('raw');
  const line = (row: TimingRow) => {
    const runs = results.runs.get(row.config.id) ?? [];
    const mine = step1(row.config.id);
    return [
      row.config.label,
      triple(summarize(runs.map((r) => r.startMs ?? Number.NaN))),
      triple(summarize(mine)),
      `${ms(median(mine.map((s, i) => s - (raw[i] ?? Number.NaN))))} ms`,
    ];
  };
  const warm = rows.filter((r) => r.config.id === 'mcp-http' || r.config.id === 'mcp-stdio');
  out('### A new server process per round: its start, and its first step');
  out();
  out(
    markdownTable(
      ['configuration', 'spawn → tools/list, ms (not in the total)', 'step 1, ms', 'step 1 minus raw, paired median'],
      [
        ['raw selenium-webdriver (floor)', '–', triple(summarize(raw)), '–'],
        ...warm.map((r) => [...line(r).slice(0, 1), '– (one server for every round)', ...line(r).slice(2)]),
        ...cold.map(line),
      ],
      ['l', 'r', 'r', 'r'],
    ),
  );
  out();
  out(
    'Step 1 is `navigate {url}` opening the browser on demand (build() + get() for raw). A client starts a server once and lists its tools before its model can call one: that start is shown apart, and what a fresh process does before its first browser either happens in it or lands in step 1.',
  );
  out();
}

/** The ratio that matters per browser: 12 MCP calls over HTTP against the raw script on that browser. */
export function printBrowsers(rows: TimingRow[], env: BenchEnv): void {
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

export interface Tokens {
  perStep: { call: string; argBytes: number; textBytes: number; textTokens: number }[];
  textBytes: number;
  /** counted with gpt-tokenizer (o200k_base, GPT-4o's and GPT-5's encoding) */
  tokens: number;
  /** the spec's older estimate: bytes / 4 */
  bytesOver4: number;
  argBytes: number;
  stdioTextBytes: number;
}

export function tokens(results: Results, siteUrl: string): Tokens {
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

export function printTokens(t: Tokens, siteUrl: string): void {
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
  out(ACT_ANSWERS);
  out();
}

/** What each act answer keeps, and why (issue 51): the page it left the browser on, and nothing the call said. */
const ACT_ANSWERS = [
  'What each act answer keeps, and why. `navigate`, `interact` and `write` answer where the browser is after the act (`title — url`):',
  'a click or a submit may have left the page, and the next selectors are only right for the page the browser is on; a dialog,',
  'a frame gone or a withheld secret is added only when there is one. `write` adds the value the field holds once typed (`null`',
  'for a password field): a field that reformats or drops what was typed shows it without another read. Nothing repeats what the',
  'call said: `interact` no longer answers `done: click css=#x` (what was done, to which element: the caller chose both), and',
  '`open_session` answers which browser and version opened, not the blank page of a new browser (one page read fewer). `screenshot`',
  'keeps its type and size (the image goes apart), `end_browser` whether a browser ended.',
].join(' ');

export function printHeader(v: Versions, env: BenchEnv): void {
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
    `- HTTP server in process (workspace \`${HTTP_WORKSPACE}\`, saved mode); stdio server: \`${env.stdioLabel}\` (handshake after ${ms(env.stdioConnectMs)} ms)`,
  );
  out();
}

/** Capture on against capture off, both over Streamable HTTP, round by round (they ran in the same rounds). */
export function printCapture(results: Results, captureBar: number): void {
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
        ['on', triple(summarize(on)), `${ratio(median(ratios))} (bar ≤ ${ratio(captureBar)})`],
      ],
    ),
  );
  out();
  out(`Round by round, on ÷ off: ${ratios.map((r) => r.toFixed(2)).join(', ')}.`);
  out();
}
