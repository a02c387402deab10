/**
 * What the embedded Grid's fence costs (`npm run bench:fence`): the 12-step task on two embedded
 * Grids side by side, one whose browsers go through the fence's proxy (the default) and one
 * started with BROWSER_FENCE=off, each driven by the raw selenium-webdriver script and by 12
 * MCP calls through its own in-process server, the four interleaved round-robin. The fence is
 * in both the raw script's and our browsers (it lives in the browser binary the node runs), so
 * the other benches' ratios hold it equal; this one says what it is.
 */
import './lib/offline.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { startEmbeddedGrid } from '../src/embedded-grid/index.js';
import type { FenceSetting } from '../src/embedded-grid/fence-report.js';
import { createServer } from '../src/server.js';
import { FIXTURE_PORTS, startFixtureSite } from '../test/fixtures/site.js';
import { runBench, withTimeout, type Cleanup } from './lib/cleanup.js';
import { McpToolCaller, connectHttp } from './lib/mcp.js';
import { rawConfiguration } from './lib/raw.js';
import { markdownTable, median, ratio, summarize, triple } from './lib/stats.js';
import { WINDOW, checkAnswers, type Configuration } from './lib/task.js';
import { toolsConfiguration } from './lib/tools-task.js';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    'timeout-minutes': { type: 'string', default: '20' },
  },
});
const ROUNDS = Number(options.rounds);
const TIMEOUT_MINUTES = Number(options['timeout-minutes']);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 50 || !(TIMEOUT_MINUTES > 0 && TIMEOUT_MINUTES <= 120)) {
  throw new Error('--rounds takes 1 to 50, --timeout-minutes 1 to 120');
}
const RUN_TIMEOUT_MS = 120_000;
const FENCES: FenceSetting[] = ['proxy', 'off'];

const out = (text = '') => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

async function side(cleanup: Cleanup, fence: FenceSetting, siteUrl: string): Promise<Configuration[]> {
  const grid = await startEmbeddedGrid({ maxSessions: 2, loopbackPorts: [FIXTURE_PORTS], firefox: false, fence });
  cleanup.add(`embedded Grid (fence ${fence})`, () => grid.stop());
  const dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-bench-fence-'));
  cleanup.add('data directory', () => rm(dataDir, { recursive: true, force: true }));
  const server = createServer(loadConfig({}, { PORT: '0', LOG_LEVEL: 'silent', FLOW_DATA_DIR: dataDir }), grid.url);
  const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
  cleanup.add('HTTP server', () => server.close());
  const client = await connectHttp(url, `bench-fence-${fence}`);
  cleanup.add('MCP client', () => client.close());
  const caller = new McpToolCaller(client);
  const capabilities = await server.grid.capabilitiesFor('chrome', WINDOW);
  return [
    { ...rawConfiguration(grid.url, siteUrl, 'script', 'chrome', capabilities), id: `raw-${fence}` },
    toolsConfiguration(`mcp-${fence}`, `12 MCP calls, fence ${fence}`, () => caller, siteUrl),
  ];
}

async function main(cleanup: Cleanup): Promise<void> {
  const site = await startFixtureSite();
  cleanup.add('fixture site', () => site.close());
  progress('starting two embedded Grids: the fence on (proxy) and BROWSER_FENCE=off');
  const configs = (await Promise.all(FENCES.map((fence) => side(cleanup, fence, site.url)))).flat();
  const totals = new Map<string, number[]>(configs.map((c) => [c.id, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    const order = configs.map((_, i) => configs[(i + round) % configs.length] as Configuration);
    for (const config of order) {
      const run = await withTimeout(`${config.id}, round ${round}`, RUN_TIMEOUT_MS, config.run());
      checkAnswers(config, run.answers, site.url);
      if (round > 0) {
        totals.get(config.id)?.push(run.totalMs);
      }
    }
    progress(round === 0 ? 'warm-up round (dropped)' : `round ${round}/${ROUNDS}`);
  }
  const of = (id: string) => totals.get(id) ?? [];
  const paired = (on: string, off: string) => median(of(on).map((t, i) => t / (of(off)[i] ?? Number.NaN)));
  out(`## What the fence costs: the 12-step task, fence on vs BROWSER_FENCE=off, ${ROUNDS} rounds`);
  out();
  out(
    markdownTable(
      ['driven by', 'fence on (proxy), ms', 'BROWSER_FENCE=off, ms', 'on ÷ off (medians)', 'on ÷ off (paired)'],
      [
        ['raw selenium-webdriver', 'raw-proxy', 'raw-off'],
        ['12 MCP calls (Streamable HTTP)', 'mcp-proxy', 'mcp-off'],
      ].map(([label, on = '', off = '']) => [
        label ?? '',
        triple(summarize(of(on))),
        triple(summarize(of(off))),
        ratio(median(of(on)) / median(of(off))),
        ratio(paired(on, off)),
      ]),
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  out();
  out(
    'min / **median** / max of the whole task. The fence is the browsers\u2019 proxy (every request of a page goes through it) and the nftables rule on their group; the raw script pays it as much as we do.',
  );
  out(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min).`,
  );
}

runBench(main, TIMEOUT_MINUTES);
