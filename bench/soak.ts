/**
 * `npm run bench:soak`: does the server's memory stay flat under a long stream of ordinary work?
 * One `selenium-flow serve` process on an embedded Grid, one workspace, one browser:
 * - `--runs` flow runs (default 1,000) with parameters: half of one flow whose `parameters` is a
 *   20 KB schema with a `$id` and a `pattern`, half spread over 100 flows that share that `$id`
 *   (more than the compiled-schema cache holds, so it evicts all along);
 * - `--calls` tool calls (default 1,000): execute_script and current_workspace in turn.
 * RSS (VmRSS of the server process) and its heap in use are sampled every 50 of each, each after
 * a full GC (GC_ON_SIGNAL, preloaded into the server for this bench only), from the
 * end of a warm-up of `--warm-up` of each (default 300: the first full GCs after start-up give
 * back about a quarter of RSS, which is settling, not the work); the run passes when the median
 * of the last three RSS samples is within `--margin` (default ±10 %, the spec's bar) of the
 * median of the first three. Before the bounded cache, 1,000 runs of the 20 KB schema grew RSS
 * by ~680 MB.
 */
import './lib/offline.js';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startEmbeddedGrid } from '../src/embedded-grid/index.js';
import { spawnReplica } from '../test/helpers/replica.js';
import { runBench } from './lib/cleanup.js';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    calls: { type: 'string', default: '1000' },
    'warm-up': { type: 'string', default: '300' },
    margin: { type: 'string', default: '10' },
    'timeout-minutes': { type: 'string', default: '30' },
  },
});
const RUNS = Number(options.runs);
const CALLS = Number(options.calls);
const MARGIN_PERCENT = Number(options.margin);
const WARM_UP = Number(options['warm-up']);
// Distinct flows the runs cycle through (a library holds up to 1,000: src/limits.ts).
const DISTINCT_FLOWS = 80;
/**
 * Preloaded into the server for this bench only: on SIGUSR2, collect garbage fully and print the
 * heap in use, so memory is sampled after a GC, not at a random point of its sawtooth.
 */
const GC_ON_SIGNAL = `process.on('SIGUSR2', () => {
  global.gc?.();
  process.stderr.write('soak-heap ' + process.memoryUsage().heapUsed + '\\n');
});
`;
const HEADERS = { 'X-Workspace': 'soak', 'content-type': 'application/json' };

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) / 1024;
}

/**
 * About 6 KB of schema, under the 8 KiB one flow tool may weigh (src/limits.ts): the kind of
 * schema that grew RSS by ~680 KB per run before the cache.
 */
function bigParameters(): Record<string, unknown> {
  const properties: Record<string, unknown> = { p: { type: 'string', pattern: '^[a-z]+$', maxLength: 64 } };
  for (let i = 0; i < 45; i++) {
    properties[`field_${i}`] = {
      type: 'string',
      maxLength: 32,
      description: `an optional field number ${i}, there to make the schema weigh what real ones do`,
    };
  }
  return { $id: 'https://soak.example/params', type: 'object', properties, required: ['p'] };
}

runBench(async (cleanup) => {
  const grid = await startEmbeddedGrid({ maxSessions: 1 });
  cleanup.add('embedded Grid', () => grid.stop());
  const dataDir = await mkdtemp(join(tmpdir(), 'soak-'));
  const preload = join(dataDir, 'gc-on-signal.cjs');
  await writeFile(preload, GC_ON_SIGNAL);
  const server = await spawnReplica({
    GRID_URL: grid.url,
    FLOW_DATA_DIR: dataDir,
    NODE_OPTIONS: `--expose-gc --require ${preload}`,
  });
  cleanup.add('selenium-flow serve', () => server.kill('SIGTERM'));
  const pid = server.child.pid as number;
  /** After a full GC in the server: its RSS, and its heap in use. */
  const sample = async (): Promise<{ rss: number; heap: number }> => {
    const seen = server.stderr().length;
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 50 && !server.stderr().slice(seen).includes('soak-heap'); i++) {
      await delay(20);
    }
    const heap = Number(/soak-heap (\d+)/.exec(server.stderr().slice(seen))?.[1] ?? Number.NaN) / 1048576;
    return { rss: rssMb(pid), heap };
  };

  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url + path, {
      method,
      headers: HEADERS,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    return answer;
  };

  const step = { tool: 'execute_script', args: { script: "return '${p}'.length" } };
  await send('PUT', '/flows/big', { parameters: bigParameters(), steps: [step] });
  console.log(`schema of flow "big": ${JSON.stringify(bigParameters()).length} bytes`);
  for (let i = 0; i < DISTINCT_FLOWS; i++) {
    const parameters = {
      $id: 'https://soak.example/params',
      type: 'object',
      properties: { p: { type: 'string', pattern: `^[a-z]{1,${i + 8}}$` } },
      required: ['p'],
    };
    await send('PUT', `/flows/f${i}`, { parameters, steps: [step] });
  }
  await send('POST', '/browser/open-session', {});

  let run = 0;
  let call = 0;
  const oneRun = async () => {
    const name = run % 2 === 0 ? 'big' : `f${(run >> 1) % DISTINCT_FLOWS}`;
    const report = await send('POST', `/flows/${name}/run`, { params: { p: 'abcdef' } });
    if (report.status !== 'ok') {
      throw new Error(`run ${run} failed: ${JSON.stringify(report).slice(0, 300)}`);
    }
    run++;
  };
  const oneCall = async () => {
    if (call % 2 === 0) {
      await send('POST', '/browser/execute-script', { script: 'return arguments[0] * 2', args: [call] });
    } else {
      await send('GET', '/workspace');
    }
    call++;
  };

  // Each sample follows a full GC in the server, so it reads what is kept, not where the sawtooth is.
  const SAMPLE_EVERY = 50;
  const settling = [await sample()];
  for (let i = 1; i <= WARM_UP; i++) {
    await oneRun();
    await oneCall();
    if (i % SAMPLE_EVERY === 0) {
      settling.push(await sample());
    }
  }
  const samples = [await sample()];
  const started = Date.now();
  const total = Math.max(RUNS, CALLS);
  for (let i = 1; i <= total; i++) {
    if (i <= RUNS) {
      await oneRun();
    }
    if (i <= CALLS) {
      await oneCall();
    }
    if (i % SAMPLE_EVERY === 0 || i === total) {
      samples.push(await sample());
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const first = samples.slice(0, 3);
  const last = samples.slice(-3);
  const before = { rss: median(first.map((s) => s.rss)), heap: median(first.map((s) => s.heap)) };
  const after = { rss: median(last.map((s) => s.rss)), heap: median(last.map((s) => s.heap)) };
  const growth = after.rss - before.rss;
  const mb = (n: number) => `${n.toFixed(1)} MB`;
  console.log(
    `${RUNS} flow runs and ${CALLS} tool calls in ${((Date.now() - started) / 1000).toFixed(0)} s, after a warm-up of ${WARM_UP} of each; server memory after a full GC, every ${SAMPLE_EVERY}:`,
  );
  console.log(
    `  warm-up (not judged), RSS: ${settling.map((s) => s.rss.toFixed(0)).join(' ')}; heap: ${settling.map((s) => s.heap.toFixed(0)).join(' ')}`,
  );
  console.log(`  RSS:  ${samples.map((s) => s.rss.toFixed(0)).join(' ')}`);
  console.log(`  heap: ${samples.map((s) => s.heap.toFixed(0)).join(' ')}`);
  console.log(`before (median of the first 3): RSS ${mb(before.rss)}, heap ${mb(before.heap)}`);
  console.log(`after (median of the last 3):   RSS ${mb(after.rss)}, heap ${mb(after.heap)}`);
  const percent = (growth / before.rss) * 100;
  const flat = Math.abs(percent) <= MARGIN_PERCENT;
  const signed = (n: number, text: string) => `${n >= 0 ? '+' : ''}${text}`;
  console.log(
    `RSS growth: ${signed(growth, mb(growth))} (${signed(percent, percent.toFixed(1))} %); heap ${signed(after.heap - before.heap, mb(after.heap - before.heap))}; ${flat ? 'FLAT' : 'NOT FLAT'} (bar ±${MARGIN_PERCENT} % of RSS)`,
  );
  if (!flat) {
    throw new Error(`RSS moved by ${percent.toFixed(1)} %, outside the ±${MARGIN_PERCENT} % bar`);
  }
}, Number(options['timeout-minutes']));
