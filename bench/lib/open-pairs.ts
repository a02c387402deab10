import { Builder } from 'selenium-webdriver';
import { Executor } from 'selenium-webdriver/http/index.js';
import type { Command } from 'selenium-webdriver/lib/command.js';
import { markdownTable, median, ms, summarize, triple } from './stats.js';
import { pages } from './task.js';
import type { ToolCaller } from './tools-task.js';

/**
 * Opening a browser and loading the first page, alone, pair by pair: the raw script's
 * `build()` + `get()` against our `navigate {url}` that opens the browser on demand (the
 * task's first step), and the raw script with `webSocketUrl` (what asking for BiDi at creation
 * costs: a Chromium of ours asks only where replicas share Redis, and builds its BiDi when first
 * wanted otherwise). The raw script asks for exactly the capabilities the server asks for. Closing is not timed. The order within
 * a round rotates, so none always follows a close.
 *
 * Session creation on a loaded machine varies by seconds from one browser to the next, which
 * no pairing of a few rounds cancels: our own work is also read directly, as the time of our
 * call minus the time the Grid itself took to answer its newSession and get (timed on the
 * WebDriver executor of the in-process server).
 */
export interface OpenPairs {
  raw: number[];
  ours: number[];
  rawWithBidi: number[];
  /** per round: our call minus the Grid's own newSession + get, ms */
  oursOwnWork: number[];
  /** per round: the WebDriver commands our call sent besides newSession and get */
  oursExtraCommands: string[][];
}

const RUNS = ['raw', 'ours', 'rawWithBidi'] as const;

/** The Grid's own time on each command an in-process call sends, while `on` holds. */
function timeCommands(): { on: boolean; commands: { name: string; ms: number }[]; restore(): void } {
  const prototype = Executor.prototype as unknown as { execute: (this: unknown, command: Command) => Promise<unknown> };
  const original = prototype.execute;
  const state = {
    on: false,
    commands: [] as { name: string; ms: number }[],
    restore: () => {
      prototype.execute = original;
    },
  };
  prototype.execute = async function (this: unknown, command: Command): Promise<unknown> {
    const recording = state.on;
    const started = performance.now();
    try {
      return await original.call(this, command);
    } finally {
      if (recording) {
        state.commands.push({ name: command.getName(), ms: performance.now() - started });
      }
    }
  };
  return state;
}

export async function measureOpenPairs(
  gridUrl: string,
  siteUrl: string,
  tools: ToolCaller,
  rounds: number,
  capabilities: Record<string, unknown>,
): Promise<OpenPairs> {
  const url = pages(siteUrl).login;
  const rawOpen = async (bidi: boolean): Promise<number> => {
    const caps = bidi ? { ...capabilities, webSocketUrl: true } : capabilities;
    const started = performance.now();
    const driver = await new Builder().usingServer(gridUrl).withCapabilities(caps).build();
    await driver.get(url);
    const elapsed = performance.now() - started;
    await driver.quit();
    return elapsed;
  };
  const timing = timeCommands();
  const own: { ms: number; extra: string[] }[] = [];
  const oursOpen = async (): Promise<number> => {
    timing.commands = [];
    timing.on = true;
    const started = performance.now();
    await tools.call('navigate', { url });
    const elapsed = performance.now() - started;
    timing.on = false;
    const grid = timing.commands.filter((c) => c.name === 'newSession' || c.name === 'get');
    own.push({
      ms: elapsed - grid.reduce((a, c) => a + c.ms, 0),
      extra: timing.commands.filter((c) => !grid.includes(c)).map((c) => c.name),
    });
    await tools.call('end_browser', {});
    return elapsed;
  };
  const result: OpenPairs = { raw: [], ours: [], rawWithBidi: [], oursOwnWork: [], oursExtraCommands: [] };
  try {
    // round 0 warms up and is dropped
    for (let round = 0; round <= rounds; round++) {
      for (let i = 0; i < RUNS.length; i++) {
        const which = RUNS[(i + round) % RUNS.length] ?? 'raw';
        const elapsed = which === 'ours' ? await oursOpen() : await rawOpen(which === 'rawWithBidi');
        if (round > 0) {
          result[which].push(elapsed);
        }
      }
    }
  } finally {
    timing.restore();
  }
  // the warm-up round's is dropped too
  for (const { ms: work, extra } of own.slice(1)) {
    result.oursOwnWork.push(work);
    result.oursExtraCommands.push(extra);
  }
  return result;
}

/** ours − raw, round by round: the bar is "within 30 ms of raw". */
export function openOverhead(pairs: OpenPairs): number {
  return median(pairs.ours.map((o, i) => o - (pairs.raw[i] ?? Number.NaN)));
}

/** What our call adds to the Grid's own work (newSession + get), median over rounds. */
export function openOwnWork(pairs: OpenPairs): number {
  return median(pairs.oursOwnWork);
}

export function openPairsTable(pairs: OpenPairs): string {
  const bidi = median(pairs.rawWithBidi.map((r, i) => r - (pairs.raw[i] ?? Number.NaN)));
  const extra = [...new Set(pairs.oursExtraCommands.map((c) => c.join(', ') || 'none'))].join('; ');
  return [
    markdownTable(
      ['open a browser + load the first page', 'ms: min / **median** / max', 'minus raw, paired median'],
      [
        ['raw selenium-webdriver (`build()` + `get()`), the same capabilities', triple(summarize(pairs.raw)), '–'],
        [
          'selenium-flow `navigate {url}`, opening on demand (MCP HTTP)',
          triple(summarize(pairs.ours)),
          `${ms(openOverhead(pairs))} ms`,
        ],
        [
          '… of which our own work (the call minus the Grid’s newSession + get)',
          triple(summarize(pairs.oursOwnWork)),
          '',
        ],
        ['_raw with `webSocketUrl` (informational)_', triple(summarize(pairs.rawWithBidi)), `${ms(bidi)} ms`],
      ],
      ['l', 'r', 'r'],
    ),
    '',
    `WebDriver commands our call sent besides newSession and get: ${extra} (the url + title it answers with).`,
    '',
    `Asking for WebDriver BiDi at creation (\`webSocketUrl\`) costs ${ms(bidi)} ms (paired median) of the open: a Chromium of ours asks it only where replicas share Redis, and otherwise builds its BiDi at the first network capture or Control (docs/network.md).`,
  ].join('\n');
}
