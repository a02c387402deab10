import { markdownTable, median, ratio } from './stats.js';

/** What bench/concurrency.ts measured, and the tables it prints of it. */

export type WorkloadId = 'reference' | 'calls';

/** One worker: whatever it needs made ready before the clock starts, a task, and an end. */
export interface Worker {
  task(): Promise<void>;
  end(): Promise<void>;
}

export type ConfigurationId = 'raw' | 'raw-paged' | 'raw-bidi' | 'one' | 'two';

export interface Configuration {
  id: ConfigurationId;
  worker(index: number, round: number): Promise<Worker>;
  /** the selenium-flow processes serving it, whose CPU time is counted per task */
  serverPids: number[];
}

export interface Workload {
  id: WorkloadId;
  title: string;
  configurations: Configuration[];
}

export interface Measured {
  perSecond: number;
  /** CPU the selenium-flow processes spent per task, ms (NaN for raw scripts) */
  serverCpuMs: number;
  /** the servers' RSS at its highest while the workers ran, over before they connected, per worker (NaN for raw) */
  rssPerWorkerBytes: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  // nearest rank: the smallest value with at least p of the values at or below it
  return sorted.length === 0 ? Number.NaN : (sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN);
}

export interface Shape {
  rounds: number;
  /** tasks per worker */
  tasks: number;
  levels: number[];
  /** the throughput bar against the raw scripts, at 8 workers and more */
  bar: number;
  out: (text?: string) => void;
}

export function printWorkload(
  workload: Workload,
  runsOf: (id: ConfigurationId, level: number) => Measured[],
  { rounds: ROUNDS, tasks, levels: LEVELS, bar: BAR_AT_8, out }: Shape,
): void {
  const medianOf = (id: ConfigurationId, level: number) => median(runsOf(id, level).map((m) => m.perSecond));
  // Replicas ask webSocketUrl at creation, a single server does not: each against a raw script asking the same.
  const bidi = workload.configurations.some((c) => c.id === 'raw-bidi');
  const baselineOf = (id: ConfigurationId): ConfigurationId => (id === 'two' && bidi ? 'raw-bidi' : 'raw');
  // The load on a shared machine drifts between rounds: each run against the raw run of its own round.
  const pairedOf = (id: ConfigurationId, level: number) => {
    const raw = runsOf(baselineOf(id), level);
    return median(runsOf(id, level).map((m, i) => m.perSecond / (raw[i]?.perSecond ?? Number.NaN)));
  };
  const cpuOf = (id: ConfigurationId, level: number) => median(runsOf(id, level).map((m) => m.serverCpuMs));
  const paged = workload.configurations.some((c) => c.id === 'raw-paged');
  out(`## ${workload.id}: ${workload.title}, tasks per second (median of ${ROUNDS} rounds, ${tasks} tasks per worker)`);
  out();
  out(
    markdownTable(
      [
        'workers',
        'raw scripts',
        ...(paged ? ['raw + page reads', 'vs raw'] : []),
        ...(bidi ? ['raw, asking webSocketUrl'] : []),
        'one server',
        'vs raw',
        'paired',
        'server CPU ms/task',
        'RSS MB/workspace',
        'two replicas',
        'vs raw',
        'paired',
        'server CPU ms/task',
        'RSS MB/workspace',
      ],
      LEVELS.map((level) => {
        const raw = medianOf('raw', level);
        return [
          String(level),
          raw.toFixed(2),
          ...(paged ? [medianOf('raw-paged', level).toFixed(2), ratio(medianOf('raw-paged', level) / raw)] : []),
          ...(bidi ? [medianOf('raw-bidi', level).toFixed(2)] : []),
          ...(['one', 'two'] as const).flatMap((id) => [
            medianOf(id, level).toFixed(2),
            ratio(medianOf(id, level) / medianOf(baselineOf(id), level)),
            ratio(pairedOf(id, level)),
            cpuOf(id, level).toFixed(1),
            (median(runsOf(id, level).map((m) => m.rssPerWorkerBytes)) / 1e6).toFixed(1),
          ]),
        ];
      }),
      Array.from({ length: 12 + (paged ? 2 : 0) + (bidi ? 1 : 0) }, () => 'r' as const),
    ),
  );
  out();
  if (bidi) {
    out(
      'Two replicas are held against the raw script asking `webSocketUrl`, as replicas ask it (docs/network.md); one server against the plain one.',
    );
    out();
  }
  if (workload.id === 'reference') {
    for (const level of LEVELS.filter((l) => l >= 8)) {
      for (const id of ['one', 'two'] as const) {
        const r = medianOf(id, level) / medianOf(baselineOf(id), level);
        const paired = pairedOf(id, level);
        const verdict = r >= BAR_AT_8 && paired >= BAR_AT_8 ? 'met' : 'NOT met';
        out(
          `- ${id === 'one' ? 'one server' : 'two replicas'} at ${level}: ${ratio(r)} raw, paired ${ratio(paired)} (bar ≥ ${BAR_AT_8}×): ${verdict}`,
        );
      }
    }
    out();
  }
}

/** p50 / p95 of each step of the reference task, per configuration, at each level. */
export function printSteps(stepTimes: Map<string, number[][]>, out: (text?: string) => void): void {
  const keys = [...stepTimes.keys()];
  out('## reference: each step, ms, p50 / p95 over every task of the kept rounds');
  out();
  out(
    markdownTable(
      ['step', ...keys],
      Array.from({ length: 12 }, (_, i) => [
        String(i + 1),
        ...keys.map((k) => {
          const values = stepTimes.get(k)?.[i] ?? [];
          return `${percentile(values, 0.5).toFixed(0)} / ${percentile(values, 0.95).toFixed(0)}`;
        }),
      ]),
      ['r', ...keys.map(() => 'r' as const)],
    ),
  );
  out();
}
