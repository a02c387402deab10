import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { promClient } from '../lazy.js';

interface Metrics {
  registry: Registry;
  toolCalls: Counter;
  toolSeconds: Histogram;
  browsersOpen: Gauge;
  gridSlots: Gauge;
  flowRuns: Counter;
  secretBinds: Counter;
  turnsWaiting: Gauge;
}

let made: Metrics | undefined;

/**
 * Whether this process counts: one without an HTTP server (stdio) has no /metrics, so nothing could
 * read its counts, and it never loads prom-client.
 */
let counting = true;

export function countNothing(): void {
  counting = false;
}

/**
 * Counts made before the registry exists, applied when it is made: loading prom-client is ~40 ms
 * of compiling in a fresh Node 20 process, which a first call must not wait for. It is made when
 * the server is idle (ops/warm-up.ts), at the first scrape, or once this many counts wait.
 */
const pending: ((metrics: Metrics) => void)[] = [];
const MAX_PENDING = 256;

function count(apply: (metrics: Metrics) => void): void {
  if (!counting) {
    return;
  }
  if (made) {
    apply(made);
    return;
  }
  pending.push(apply);
  if (pending.length >= MAX_PENDING) {
    metrics();
  }
}

/** Builds the registry now (ops/warm-up.ts). */
export function prepareMetrics(): void {
  if (counting) {
    metrics();
  }
}

/**
 * What /metrics exposes, in one registry for the process. Events are counted where they happen
 * (one call each); the Grid's slots are read when Prometheus scrapes. No label carries a
 * workspace, a URL, a title or an id: every label value comes from a fixed set (a tool name, an
 * error code, ok/refused). Made at the first count or scrape, not at boot: prom-client loads
 * with it (src/lazy.ts).
 */
function metrics(): Metrics {
  if (!made) {
    const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = promClient();
    const registry = new Registry();
    // The process and runtime series every Node exporter has (process_cpu_seconds_total,
    // process_resident_memory_bytes, nodejs_heap_size_used_bytes, nodejs_eventloop_lag_seconds …),
    // under their usual names, so stock dashboards and alerts work unchanged.
    collectDefaultMetrics({ register: registry });
    made = {
      registry,
      toolCalls: new Counter({
        name: 'selenium_flow_tool_calls_total',
        help: 'Tool calls by tool and outcome (ok, or the error code the caller saw)',
        labelNames: ['tool', 'outcome'],
        registers: [registry],
      }),
      toolSeconds: new Histogram({
        name: 'selenium_flow_tool_call_duration_seconds',
        help: 'How long tool calls took, waiting for their turn included',
        labelNames: ['tool'],
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
        registers: [registry],
      }),
      browsersOpen: new Gauge({
        name: 'selenium_flow_browsers_open',
        help: 'Browsers this replica opened minus those it ended (sum over replicas for the whole)',
        registers: [registry],
      }),
      gridSlots: new Gauge({
        name: 'selenium_flow_grid_slots',
        help: "The Grid's browser slots by state (free, used), read at scrape time; absent when the Grid does not answer",
        labelNames: ['state'],
        registers: [registry],
      }),
      flowRuns: new Counter({
        name: 'selenium_flow_flow_runs_total',
        help: 'Flow runs by outcome (ok, failed)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
      secretBinds: new Counter({
        name: 'selenium_flow_secret_binds_total',
        help: 'Secret binds by outcome (allowed, refused)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
      turnsWaiting: new Gauge({
        name: 'selenium_flow_turns_waiting',
        help: 'Calls waiting for their turn on a browser, in this replica',
        registers: [registry],
      }),
    };
    for (const apply of pending.splice(0)) {
      apply(made);
    }
  }
  return made;
}

export function countToolCall(tool: string, outcome: string, ms: number): void {
  count(({ toolCalls, toolSeconds }) => {
    toolCalls.inc({ tool, outcome });
    toolSeconds.observe({ tool }, ms / 1000);
  });
}

export function countBrowser(change: 'opened' | 'ended'): void {
  count(({ browsersOpen }) => browsersOpen.inc(change === 'opened' ? 1 : -1));
}

export function countFlowRun(outcome: 'ok' | 'failed'): void {
  count(({ flowRuns }) => flowRuns.inc({ outcome }));
}

export function countSecretBind(allowed: boolean): void {
  count(({ secretBinds }) => secretBinds.inc({ outcome: allowed ? 'allowed' : 'refused' }));
}

/** A call starts waiting for its turn; the answer ends the wait (once, however often it is called). */
export function waitForTurn(): () => void {
  count(({ turnsWaiting }) => turnsWaiting.inc());
  let waiting = true;
  return () => {
    if (waiting) {
      waiting = false;
      count(({ turnsWaiting }) => turnsWaiting.dec());
    }
  };
}

export interface SlotCount {
  free: number;
  used: number;
}

/** The text Prometheus scrapes, with the Grid's slots as they are now (undefined: not answering). */
export async function metricsText(slots: SlotCount | undefined): Promise<string> {
  const { gridSlots, registry } = metrics();
  gridSlots.reset();
  if (slots) {
    gridSlots.set({ state: 'free' }, slots.free);
    gridSlots.set({ state: 'used' }, slots.used);
  }
  return registry.metrics();
}

/** What /metrics answers as its Content-Type. */
export function metricsContentType(): string {
  return metrics().registry.contentType;
}
