/**
 * `npx tsx bench/concurrency.ts`: throughput with 1, 4 and 8 workspaces working at once,
 * - through one `selenium-flow serve` process (MCP over Streamable HTTP, memory store),
 * - through two replicas sharing Redis behind a round-robin proxy (each request of a client
 *   may land on either replica),
 * against 1, 4 and 8 raw selenium-webdriver scripts, all on one embedded Grid with 8 slots, in
 * one run, interleaved round-robin, the warm-up round dropped. The task, per worker and
 * repeated: open the 50-row table page, read its rows, go back. Prints a Markdown table of
 * tasks per second and the ratios to raw (bar: ≥ 0.9× at 8); `--json <file>` writes every number.
 */
import './lib/offline.js';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { browserCapabilities } from '../src/grid/capabilities.js';
import { startEmbeddedGrid } from '../src/grid/embedded.js';
import { startFixtureSite } from '../test/fixtures/site.js';
import { startRedis } from '../test/helpers/redis.js';
import { roundRobinProxy, spawnReplica, type Replica } from '../test/helpers/replica.js';
import { runBench, withTimeout, type Cleanup } from './lib/cleanup.js';
import { connectHttp, McpToolCaller } from './lib/mcp.js';
import { cpuMillis, processTree } from './lib/processes.js';
import { markdownTable, median, ratio, summarize } from './lib/stats.js';
import { WINDOW, pages } from './lib/task.js';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    tasks: { type: 'string', default: '6' },
    levels: { type: 'string', default: '1,4,8' },
    json: { type: 'string' },
    'timeout-minutes': { type: 'string', default: '25' },
  },
});

const whole = (name: string, value: string | undefined, max: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new Error(`--${name} must be a whole number from 1 to ${max} (got ${value})`);
  }
  return n;
};

const ROUNDS = whole('rounds', options.rounds, 50);
const TASKS = whole('tasks', options.tasks, 100);
const LEVELS = (options.levels ?? '').split(',').map((v) => whole('levels', v, 8));
const TIMEOUT_MINUTES = whole('timeout-minutes', options['timeout-minutes'], 120);
const MAX_LEVEL = Math.max(...LEVELS);
const BAR_AT_8 = 0.9;
const ROWS_SCRIPT = "return Array.from(document.querySelectorAll('#data tbody tr'), (r) => r.innerText);";

const out = (text = '') => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

/** One worker: a browser made ready before the clock starts, a task, and an end. */
interface Worker {
  task(): Promise<void>;
  end(): Promise<void>;
}

interface Configuration {
  id: 'raw' | 'one' | 'two';
  label: string;
  worker(index: number, round: number): Promise<Worker>;
  /** the selenium-flow processes serving it, whose CPU time is counted per task */
  serverPids: number[];
}

interface Measured {
  perSecond: number;
  /** CPU the selenium-flow processes spent per task, ms (NaN for raw scripts) */
  serverCpuMs: number;
}

class WrongAnswer extends Error {}

function checkRows(rows: unknown): void {
  if (!Array.isArray(rows) || rows.length !== 50) {
    throw new WrongAnswer(`expected 50 rows, read ${Array.isArray(rows) ? rows.length : typeof rows}`);
  }
}

function rawConfiguration(gridUrl: string, siteUrl: string): Configuration {
  const url = pages(siteUrl);
  return {
    id: 'raw',
    label: 'raw selenium-webdriver scripts',
    worker: async () => {
      const driver: WebDriver = await new Builder().usingServer(gridUrl).withCapabilities(browserCapabilities('chrome', WINDOW)).build();
      await driver.get(url.login);
      return {
        task: async () => {
          await driver.get(url.table);
          checkRows(await driver.executeScript<string[]>(ROWS_SCRIPT));
          await driver.navigate().back();
        },
        end: () => driver.quit(),
      };
    },
    serverPids: [],
  };
}

function serverConfiguration(id: 'one' | 'two', label: string, baseUrl: string, siteUrl: string, serverPids: number[]): Configuration {
  const url = pages(siteUrl);
  return {
    id,
    label,
    serverPids,
    worker: async (index, round) => {
      const client = await connectHttp(baseUrl, `bench-${id}-${round}-${index}`, `bench-${id}`);
      const tools = new McpToolCaller(client);
      await tools.call('navigate', { url: url.login });
      return {
        task: async () => {
          await tools.call('navigate', { url: url.table });
          checkRows((await tools.call('extract', { selector: { css: '#data tbody tr' }, all: true })).structured.values);
          await tools.call('navigate', { action: 'back' });
        },
        end: async () => {
          await tools.call('end_browser', {}).catch(() => undefined);
          await client.close();
        },
      };
    },
  };
}

/** Tasks per second with `level` workers, each running TASKS tasks at once; browsers open before the clock starts. */
async function throughput(configuration: Configuration, level: number, round: number): Promise<Measured> {
  const settled = await Promise.allSettled(Array.from({ length: level }, (_, i) => configuration.worker(i, round)));
  const workers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) {
      throw failed.reason;
    }
    const serverCpu = () => configuration.serverPids.reduce((sum, pid) => sum + cpuMillis(pid), 0);
    const cpuBefore = serverCpu();
    const started = performance.now();
    await Promise.all(
      workers.map(async (worker) => {
        for (let t = 0; t < TASKS; t += 1) {
          await worker.task();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const serverCpuMs = configuration.serverPids.length > 0 ? (serverCpu() - cpuBefore) / (level * TASKS) : Number.NaN;
    return { perSecond: (level * TASKS) / seconds, serverCpuMs };
  } finally {
    await Promise.all(workers.map((w) => w.end().catch(() => undefined)));
  }
}

async function main(cleanup: Cleanup): Promise<void> {
  progress(`starting a Grid with ${MAX_LEVEL} slots, the fixture site, Redis, and three selenium-flow processes`);
  const grid = await startEmbeddedGrid({ maxSessions: Math.max(MAX_LEVEL, 1) });
  cleanup.add('embedded Grid', () => grid.stop());
  const site = await startFixtureSite();
  cleanup.add('fixture site', () => site.close());
  const redis = await startRedis();
  cleanup.add('redis', () => redis.stop());
  const base = { GRID_URL: grid.url, LOG_LEVEL: 'warn' };
  const [one, replicaA, replicaB] = await Promise.all([
    spawnReplica(base),
    spawnReplica({ ...base, REDIS_URL: redis.url }),
    spawnReplica({ ...base, REDIS_URL: redis.url }),
  ]);
  for (const [name, replica] of [['one server', one], ['replica A', replicaA], ['replica B', replicaB]] as const) {
    cleanup.add(name, () => replica.kill('SIGTERM'));
  }
  const proxy = await roundRobinProxy([replicaA.url, replicaB.url]);
  cleanup.add('proxy', async () => {
    if (proxy.errors.length > 0) {
      progress(`the proxy saw ${proxy.errors.length} upstream failure(s): ${proxy.errors.slice(0, 5).join('; ')}`);
    }
    await proxy.close();
  });

  const configurations = [
    rawConfiguration(grid.url, site.url),
    serverConfiguration('one', 'one selenium-flow (MCP, Streamable HTTP)', one.url, site.url, pidsOf(one)),
    serverConfiguration('two', 'two replicas + Redis, round-robin per request', proxy.url, site.url, [...pidsOf(replicaA), ...pidsOf(replicaB)]),
  ];
  const results = new Map<string, Measured[]>();
  const key = (id: string, level: number) => `${id}@${level}`;
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const level of LEVELS) {
      for (const configuration of configurations) {
        const what = `${configuration.id} with ${level} workers, round ${round}`;
        const measured = await withTimeout(what, 10 * 60_000, throughput(configuration, level, round)).catch((err: unknown) => {
          const cause = err instanceof Error && err.cause instanceof Error ? ` (cause: ${err.cause.message})` : '';
          throw new Error(`${what} failed: ${err instanceof Error ? err.message : String(err)}${cause}`, { cause: err });
        });
        const cpu = Number.isNaN(measured.serverCpuMs) ? '' : `, server CPU ${measured.serverCpuMs.toFixed(1)} ms/task`;
        progress(`round ${round === 0 ? 'warm-up' : round}: ${configuration.id} × ${level}: ${measured.perSecond.toFixed(2)} tasks/s${cpu}`);
        if (round > 0) {
          results.set(key(configuration.id, level), [...(results.get(key(configuration.id, level)) ?? []), measured]);
        }
      }
    }
  }

  const runsOf = (id: string, level: number) => results.get(key(id, level)) ?? [];
  const medianOf = (id: string, level: number) => median(runsOf(id, level).map((m) => m.perSecond));
  // The load on a shared machine drifts between rounds: each run against the raw run of its own round.
  const pairedOf = (id: string, level: number) => {
    const raw = runsOf('raw', level);
    return median(runsOf(id, level).map((m, i) => m.perSecond / (raw[i]?.perSecond ?? Number.NaN)));
  };
  const cpuOf = (id: string, level: number) => median(runsOf(id, level).map((m) => m.serverCpuMs));
  out(`## Concurrency: tasks per second (median of ${ROUNDS} rounds, ${TASKS} tasks per worker; task = open the table page, read 50 rows, go back)`);
  out();
  out(
    markdownTable(
      ['workers', 'raw scripts', 'one server', 'vs raw', 'paired', 'server CPU ms/task', 'two replicas', 'vs raw', 'paired', 'server CPU ms/task'],
      LEVELS.map((level) => {
        const raw = medianOf('raw', level);
        return [
          String(level),
          raw.toFixed(2),
          ...(['one', 'two'] as const).flatMap((id) => [
            medianOf(id, level).toFixed(2),
            ratio(medianOf(id, level) / raw),
            ratio(pairedOf(id, level)),
            cpuOf(id, level).toFixed(1),
          ]),
        ];
      }),
      ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  out();
  if (LEVELS.includes(8)) {
    for (const id of ['one', 'two']) {
      const r = medianOf(id, 8) / medianOf('raw', 8);
      const paired = pairedOf(id, 8);
      const verdict = r >= BAR_AT_8 && paired >= BAR_AT_8 ? 'met' : 'NOT met';
      out(`- ${id === 'one' ? 'one server' : 'two replicas'} at 8: ${ratio(r)} raw, paired ${ratio(paired)} (bar ≥ ${BAR_AT_8}×): ${verdict}`);
    }
  }
  if (options.json) {
    const json = Object.fromEntries([...results.entries()].map(([k, v]) => [k, { runs: v, ...summarize(v.map((m) => m.perSecond)) }]));
    writeFileSync(options.json, JSON.stringify({ rounds: ROUNDS, tasksPerWorker: TASKS, levels: LEVELS, tasksPerSecond: json }, null, 2));
  }
}

runBench(main, TIMEOUT_MINUTES);

/** The replica's node process and what it started (tsx runs the server in a child of the node it spawned). */
function pidsOf(replica: Replica): number[] {
  return replica.child.pid === undefined ? [] : processTree(replica.child.pid);
}
