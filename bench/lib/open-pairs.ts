import { Builder } from 'selenium-webdriver';
import { browserCapabilities } from '../../src/grid/capabilities.js';
import { markdownTable, median, ms, summarize, triple } from './stats.js';
import { WINDOW, pages } from './task.js';
import type { ToolCaller } from './tools-task.js';

/**
 * Opening a browser and loading the first page, alone, pair by pair: the raw script's
 * `build()` + `get()` against our `navigate {url}` that opens the browser on demand (the
 * task's first step), and the raw script without `webSocketUrl` (what asking for BiDi at
 * creation costs; every browser of ours asks, so capture can start at any time). Closing is
 * not timed. The order within a round rotates, so none always follows a close.
 */
export interface OpenPairs {
  raw: number[];
  ours: number[];
  rawWithoutBidi: number[];
}

const RUNS = ['raw', 'ours', 'rawWithoutBidi'] as const;

export async function measureOpenPairs(
  gridUrl: string,
  siteUrl: string,
  tools: ToolCaller,
  rounds: number,
): Promise<OpenPairs> {
  const url = pages(siteUrl).login;
  const rawOpen = async (bidi: boolean): Promise<number> => {
    const caps = browserCapabilities('chrome', WINDOW);
    if (!bidi) {
      delete caps.webSocketUrl;
    }
    const started = performance.now();
    const driver = await new Builder().usingServer(gridUrl).withCapabilities(caps).build();
    await driver.get(url);
    const elapsed = performance.now() - started;
    await driver.quit();
    return elapsed;
  };
  const oursOpen = async (): Promise<number> => {
    const started = performance.now();
    await tools.call('navigate', { url });
    const elapsed = performance.now() - started;
    await tools.call('end_browser', {});
    return elapsed;
  };
  const result: OpenPairs = { raw: [], ours: [], rawWithoutBidi: [] };
  // round 0 warms up and is dropped
  for (let round = 0; round <= rounds; round++) {
    for (let i = 0; i < RUNS.length; i++) {
      const which = RUNS[(i + round) % RUNS.length] ?? 'raw';
      const elapsed = which === 'ours' ? await oursOpen() : await rawOpen(which === 'raw');
      if (round > 0) {
        result[which].push(elapsed);
      }
    }
  }
  return result;
}

/** ours − raw, round by round: the bar is "within 30 ms of raw". */
export function openOverhead(pairs: OpenPairs): number {
  return median(pairs.ours.map((o, i) => o - (pairs.raw[i] ?? Number.NaN)));
}

export function openPairsTable(pairs: OpenPairs): string {
  const bidi = median(pairs.raw.map((r, i) => r - (pairs.rawWithoutBidi[i] ?? Number.NaN)));
  return [
    markdownTable(
      ['open a browser + load the first page', 'ms: min / **median** / max', 'minus raw, paired median'],
      [
        ['raw selenium-webdriver (`build()` + `get()`)', triple(summarize(pairs.raw)), '–'],
        [
          'selenium-flow `navigate {url}`, opening on demand (MCP HTTP)',
          triple(summarize(pairs.ours)),
          `${ms(openOverhead(pairs))} ms`,
        ],
        ['_raw without `webSocketUrl` (informational)_', triple(summarize(pairs.rawWithoutBidi)), `${ms(-bidi)} ms`],
      ],
      ['l', 'r', 'r'],
    ),
    '',
    `Asking for WebDriver BiDi at creation (\`webSocketUrl\`, which network capture and Control need, and which the raw script asks too) costs ${ms(bidi)} ms (paired median) of the open.`,
  ].join('\n');
}
