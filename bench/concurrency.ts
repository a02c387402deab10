/**
 * `npx tsx bench/concurrency.ts`: throughput with N workspaces working at once (`--levels`, up to 16),
 * - through one `selenium-flow serve` process (MCP over Streamable HTTP, memory store),
 * - through two replicas sharing Redis behind a round-robin proxy (each request of a client
 *   may land on either replica),
 * against as many raw selenium-webdriver scripts, all on one embedded Grid (a hub and `--nodes`
 * nodes, default 2, with as many slots as the most workers; `--nodes 0`: one standalone Grid), in
 * one run, interleaved round-robin, the warm-up round dropped. Two workloads, each a table:
 * - `reference`: the reference task of performance.md (twelve steps, browser opened and
 *   closed), per worker and repeated: 8 workspaces against 8 copies of the raw script. The bar
 *   (≥ 0.9× the raw scripts at 8) is read here.
 * - `calls`: browsers opened before the clock; the task is three calls (open the 50-row table
 *   page, read its rows, go back): the per-call cost alone. Beside the raw script it runs the
 *   raw script that also reads the page state after `get` and `back` as `navigate` answers it
 *   (the contract's own WebDriver cost), so the gap splits into contract and server.
 * Prints a Markdown table per workload of tasks per second and the ratios to raw; `--json
 * <file>` writes every number.
 */
import './lib/offline.js';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { TOP_PAGE } from '../src/browser/page-state.js';
import { browserCapabilities } from '../src/grid/capabilities.js';
import { startEmbeddedGrid, startHubAndNodes } from '../src/embedded-grid/index.js';
import { gridFetch } from '../src/grid/grid.js';
import { FIXTURE_PORTS, startFixtureSite } from '../test/fixtures/site.js';
import { startRedis } from '../test/helpers/redis.js';
import { roundRobinProxy, spawnReplica, type Replica } from '../test/helpers/replica.js';
import { runBench, withTimeout, type Cleanup } from './lib/cleanup.js';
import { connectHttp, McpToolCaller } from './lib/mcp.js';
import { REPO } from './lib/env.js';
import { serverEntry } from './lib/measures.js';
import { cpuMillis, processTree, rssBytes } from './lib/processes.js';
import { ROWS_SCRIPT, rawConfiguration as rawTwelveSteps } from './lib/raw.js';
import { summarize } from './lib/stats.js';
import {
  printSteps,
  printWorkload,
  type Configuration,
  type ConfigurationId,
  type Measured,
  type Worker,
  type Workload,
  type WorkloadId,
} from './lib/concurrency-report.js';
import { WINDOW, WrongAnswer, checkAnswers, pages, type Configuration as TwelveSteps } from './lib/task.js';
import { runTwelveCalls } from './lib/tools-task.js';

const WORKLOADS = ['reference', 'calls'] as const;

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    workloads: { type: 'string', default: WORKLOADS.join(',') },
    'reference-tasks': { type: 'string', default: '3' },
    'calls-tasks': { type: 'string', default: '6' },
    levels: { type: 'string', default: '1,4,8' },
    nodes: { type: 'string', default: '2' },
    // no dropped warm-up round: for a run that must end soon (the first round then pays the servers' first loads)
    'skip-warm-up': { type: 'boolean', default: false },
    json: { type: 'string' },
    'timeout-minutes': { type: 'string', default: '50' },
  },
});

const whole = (name: string, value: string | undefined, max: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new Error(`--${name} must be a whole number from 1 to ${max} (got ${value})`);
  }
  return n;
};

const workloadId = (value: string): WorkloadId => {
  const found = WORKLOADS.find((w) => w === value);
  if (!found) {
    throw new Error(`--workloads takes ${WORKLOADS.join(', ')} (got ${value})`);
  }
  return found;
};

const ROUNDS = whole('rounds', options.rounds, 50);
const SELECTED = (options.workloads ?? '').split(',').map(workloadId);
const TASKS: Record<WorkloadId, number> = {
  reference: whole('reference-tasks', options['reference-tasks'], 100),
  calls: whole('calls-tasks', options['calls-tasks'], 100),
};
const LEVELS = (options.levels ?? '').split(',').map((v) => whole('levels', v, 16));
const NODES = options.nodes === '0' ? 0 : whole('nodes', options.nodes, 4);
const TIMEOUT_MINUTES = whole('timeout-minutes', options['timeout-minutes'], 180);
const MAX_LEVEL = Math.max(...LEVELS);
const BAR_AT_8 = 0.9;

const out = (text = '') => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

/** Per-step times of the reference task, by `configuration@level` (the run under way says which). */
const stepTimes = new Map<string, number[][]>();
let stepsKey: string | undefined;
function noteSteps(stepMs: readonly (number | undefined)[]): void {
  if (stepsKey === undefined) {
    return;
  }
  const perStep = stepTimes.get(stepsKey) ?? stepMs.map(() => []);
  stepMs.forEach((ms, i) => ms !== undefined && perStep[i]?.push(ms));
  stepTimes.set(stepsKey, perStep);
}

function checkRows(rows: unknown): void {
  if (!Array.isArray(rows) || rows.length !== 50) {
    throw new WrongAnswer(`expected 50 rows, read ${Array.isArray(rows) ? rows.length : typeof rows}`);
  }
}

/** The twelve steps, each task opening and closing its own browser, checked like the serial bench checks them. */
function referenceWorkload(gridUrl: string, siteUrl: string, servers: Record<'one' | 'two', Server>): Workload {
  const checked = (steps: TwelveSteps) => async () => {
    const run = await steps.run();
    checkAnswers(steps, run.answers, siteUrl);
    noteSteps(run.stepMs);
  };
  const raw = rawTwelveSteps(gridUrl, siteUrl, 'script');
  // Replicas on Redis ask BiDi at creation (docs/network.md), a single server does not: each is
  // held against a raw script that asks what it asks.
  const rawBidi = rawTwelveSteps(gridUrl, siteUrl, 'script', 'chrome', {
    ...browserCapabilities('chrome', WINDOW),
    webSocketUrl: true,
  });
  const served = (id: 'one' | 'two') =>
    servedConfiguration('reference', id, servers[id], async (tools) => ({
      task: checked({ id, label: id, run: () => runTwelveCalls(tools, siteUrl) }),
      end: () => tools.client.close(),
    }));
  return {
    id: 'reference',
    title: 'the reference task (performance.md: twelve steps, the browser opened and closed in each)',
    configurations: [
      { id: 'raw', serverPids: [], worker: async () => ({ task: checked(raw), end: async () => undefined }) },
      { id: 'raw-bidi', serverPids: [], worker: async () => ({ task: checked(rawBidi), end: async () => undefined }) },
      served('one'),
      served('two'),
    ],
  };
}

/** Three calls on a browser opened before the clock: what a call costs, with nothing to dilute it. */
function callsWorkload(gridUrl: string, siteUrl: string, servers: Record<'one' | 'two', Server>): Workload {
  const url = pages(siteUrl);
  const raw = (readPage: boolean): Configuration => ({
    id: readPage ? 'raw-paged' : 'raw',
    serverPids: [],
    worker: async () => {
      const driver: WebDriver = await new Builder()
        .usingServer(gridUrl)
        .withCapabilities(browserCapabilities('chrome', WINDOW))
        .build();
      await driver.get(url.login);
      const pageState = () => (readPage ? driver.executeScript(TOP_PAGE) : undefined);
      return {
        task: async () => {
          await driver.get(url.table);
          await pageState();
          checkRows(await driver.executeScript<string[]>(ROWS_SCRIPT));
          await driver.navigate().back();
          await pageState();
        },
        end: () => driver.quit(),
      };
    },
  });
  const served = (id: 'one' | 'two') =>
    servedConfiguration('calls', id, servers[id], async (tools) => {
      await tools.call('navigate', { url: url.login });
      return {
        task: async () => {
          await tools.call('navigate', { url: url.table });
          checkRows(
            (await tools.call('extract', { selector: { css: '#data tbody tr' }, all: true })).structured.values,
          );
          await tools.call('navigate', { action: 'back' });
        },
        end: async () => {
          await tools.call('end_browser', {}).catch(() => undefined);
          await tools.client.close();
        },
      };
    });
  return {
    id: 'calls',
    title: 'three calls on an open browser (open the table page, read 50 rows, go back)',
    configurations: [raw(false), raw(true), served('one'), served('two')],
  };
}

interface Server {
  url: string;
  pids: number[];
}

/** Served by selenium-flow: each worker an MCP client of its own, in a workspace of its own. */
function servedConfiguration(
  workload: WorkloadId,
  id: 'one' | 'two',
  server: Server,
  ready: (tools: McpToolCaller) => Promise<Worker>,
): Configuration {
  return {
    id,
    serverPids: server.pids,
    worker: async (index, round) =>
      ready(
        new McpToolCaller(await connectHttp(server.url, `bench-${workload}-${id}-${round}-${index}`, `bench-${id}`)),
      ),
  };
}

/** Tasks per second with `level` workers, each running `tasks` tasks, all at once; workers are made ready before the clock starts. */
async function throughput(
  configuration: Configuration,
  level: number,
  round: number,
  tasks: number,
): Promise<Measured> {
  const serverRss = () => configuration.serverPids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const rssBefore = serverRss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, serverRss());
  }, 250);
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
        for (let t = 0; t < tasks; t += 1) {
          await worker.task();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const serverCpuMs = configuration.serverPids.length > 0 ? (serverCpu() - cpuBefore) / (level * tasks) : Number.NaN;
    rssPeak = Math.max(rssPeak, serverRss());
    const rssPerWorkerBytes = configuration.serverPids.length > 0 ? (rssPeak - rssBefore) / level : Number.NaN;
    return { perSecond: (level * tasks) / seconds, serverCpuMs, rssPerWorkerBytes };
  } finally {
    clearInterval(sampler);
    await Promise.all(workers.map((w) => w.end().catch(() => undefined)));
  }
}

async function main(cleanup: Cleanup): Promise<void> {
  const gridShape = NODES === 0 ? 'a standalone Grid' : `a hub and ${NODES} nodes`;
  progress(`starting ${gridShape} with ${MAX_LEVEL} slots, the fixture site, Redis, and three selenium-flow processes`);
  const site = await startFixtureSite();
  cleanup.add('fixture site', () => site.close());
  // The fixture sites' ports are the only ones of this host the browsers may open.
  const grid =
    NODES === 0
      ? await startEmbeddedGrid({ maxSessions: Math.max(MAX_LEVEL, 1), loopbackPorts: [FIXTURE_PORTS] })
      : await startHubAndNodes({
          nodes: NODES,
          maxSessions: Math.ceil(Math.max(MAX_LEVEL, 1) / NODES),
          loopbackPorts: [FIXTURE_PORTS],
        });
  cleanup.add('embedded Grid', () => grid.stop());
  const redis = await startRedis();
  cleanup.add('redis', () => redis.stop());
  // Every worker is the same anonymous caller: the per-caller cap must let all of them hold a browser.
  // ...and wait as long for a slot as a raw script does: at 16 on 2 cores the Grid's queue outlasts 30 s.
  const base = {
    GRID_URL: grid.url,
    LOG_LEVEL: 'warn',
    BROWSERS_PER_CALLER: String(Math.max(MAX_LEVEL, 4)),
    GRID_SLOT_WAIT: '600',
  };
  // The servers are what users run (dist/cli.js): tsx's loader costs them a third more CPU a task.
  const entry = serverEntry(REPO);
  progress(`servers: ${entry.label} serve`);
  const [one, replicaA, replicaB] = await Promise.all([
    spawnReplica(base, entry.args),
    spawnReplica({ ...base, REDIS_URL: redis.url }, entry.args),
    spawnReplica({ ...base, REDIS_URL: redis.url }, entry.args),
  ]);
  for (const [name, replica] of [
    ['one server', one],
    ['replica A', replicaA],
    ['replica B', replicaB],
  ] as const) {
    cleanup.add(name, () => replica.kill('SIGTERM'));
  }
  const proxy = await roundRobinProxy([replicaA.url, replicaB.url]);
  cleanup.add('proxy', async () => {
    if (proxy.errors.length > 0) {
      progress(`the proxy saw ${proxy.errors.length} upstream failure(s): ${proxy.errors.slice(0, 5).join('; ')}`);
    }
    await proxy.close();
  });

  const servers = {
    one: { url: one.url, pids: pidsOf(one) },
    two: { url: proxy.url, pids: [...pidsOf(replicaA), ...pidsOf(replicaB)] },
  };
  const workloads = [referenceWorkload(grid.url, site.url, servers), callsWorkload(grid.url, site.url, servers)].filter(
    (w) => SELECTED.includes(w.id),
  );
  const results = new Map<string, Measured[]>();
  const key = (workload: WorkloadId, id: ConfigurationId, level: number) => `${workload}:${id}@${level}`;
  for (let round = options['skip-warm-up'] ? 1 : 0; round <= ROUNDS; round += 1) {
    for (const workload of workloads) {
      for (const level of LEVELS) {
        for (const configuration of workload.configurations) {
          const what = `${workload.id}: ${configuration.id} with ${level} workers, round ${round}`;
          stepsKey = round > 0 && workload.id === 'reference' ? `${configuration.id}@${level}` : undefined;
          const measured = await withTimeout(
            what,
            15 * 60_000,
            throughput(configuration, level, round, TASKS[workload.id]),
          ).catch((err: unknown) => {
            const cause = err instanceof Error && err.cause instanceof Error ? ` (cause: ${err.cause.message})` : '';
            throw new Error(`${what} failed: ${err instanceof Error ? err.message : String(err)}${cause}`, {
              cause: err,
            });
          });
          await noBrowserLeft(grid.url, what);
          const cpu = Number.isNaN(measured.serverCpuMs)
            ? ''
            : `, server CPU ${measured.serverCpuMs.toFixed(1)} ms/task`;
          progress(
            `round ${round === 0 ? 'warm-up' : round}: ${workload.id}: ${configuration.id} × ${level}: ${measured.perSecond.toFixed(2)} tasks/s${cpu}`,
          );
          if (round > 0) {
            const k = key(workload.id, configuration.id, level);
            results.set(k, [...(results.get(k) ?? []), measured]);
          }
        }
      }
    }
  }

  out(
    `Grid: ${gridShape} (Grid 4.48, ${Math.ceil(Math.max(MAX_LEVEL, 1) / Math.max(NODES, 1))} slots per node); servers: ${entry.label} serve; machine: 2 cores shared, so at 16 workers every configuration is CPU-bound and the ratio, not the rate, is the measure.`,
  );
  out();
  for (const workload of workloads) {
    printWorkload(workload, (id, level) => results.get(key(workload.id, id, level)) ?? [], {
      rounds: ROUNDS,
      tasks: TASKS[workload.id],
      levels: LEVELS,
      bar: BAR_AT_8,
      out,
    });
  }
  if (stepTimes.size > 0) {
    printSteps(stepTimes, out);
  }
  if (options.json) {
    const json = Object.fromEntries(
      [...results.entries()].map(([k, v]) => [k, { runs: v, ...summarize(v.map((m) => m.perSecond)) }]),
    );
    writeFileSync(
      options.json,
      JSON.stringify({ rounds: ROUNDS, tasksPerWorker: TASKS, levels: LEVELS, tasksPerSecond: json }, null, 2),
    );
  }
}

runBench(main, TIMEOUT_MINUTES);

/**
 * Every configuration ends the browsers it opened: one left behind holds a Grid slot, and the
 * next configuration's browsers would wait for it (a leak is a failed run, not a slow one).
 */
async function noBrowserLeft(gridUrl: string, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = (await (await gridFetch(`${gridUrl}/status`, { method: 'GET' })).json()) as {
      value: { nodes: { slots: { session: unknown }[] }[] };
    };
    const busy = status.value.nodes.flatMap((n) => n.slots).filter((slot) => slot.session !== null).length;
    if (busy === 0) {
      return;
    }
    if (Date.now() >= deadline) {
      throw new Error(`${what} left ${busy} browser(s) open on the Grid`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The replica's node process and whatever it started (under tsx, the server is a child of it). */
function pidsOf(replica: Replica): number[] {
  return replica.child.pid === undefined ? [] : processTree(replica.child.pid);
}
