import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What /metrics exposes, in one registry for the process. Events are counted where they happen
 * (one call each); the Grid's slots are read when Prometheus scrapes. No label carries a
 * workspace, a URL, a title or an id: every label value comes from a fixed set (a tool name, an
 * error code, ok/refused).
 */
export const registry = new Registry();

const toolCalls = new Counter({
  name: 'selenium_flow_tool_calls_total',
  help: 'Tool calls by tool and outcome (ok, or the error code the caller saw)',
  labelNames: ['tool', 'outcome'],
  registers: [registry],
});

const toolSeconds = new Histogram({
  name: 'selenium_flow_tool_call_duration_seconds',
  help: 'How long tool calls took, waiting for their turn included',
  labelNames: ['tool'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

const browsersOpen = new Gauge({
  name: 'selenium_flow_browsers_open',
  help: 'Browsers this replica opened minus those it ended (sum over replicas for the whole)',
  registers: [registry],
});

const gridSlots = new Gauge({
  name: 'selenium_flow_grid_slots',
  help: "The Grid's browser slots by state (free, used), read at scrape time; absent when the Grid does not answer",
  labelNames: ['state'],
  registers: [registry],
});

const flowRuns = new Counter({
  name: 'selenium_flow_flow_runs_total',
  help: 'Flow runs by outcome (ok, failed)',
  labelNames: ['outcome'],
  registers: [registry],
});

const secretBinds = new Counter({
  name: 'selenium_flow_secret_binds_total',
  help: 'Secret binds by outcome (allowed, refused)',
  labelNames: ['outcome'],
  registers: [registry],
});

const turnsWaiting = new Gauge({
  name: 'selenium_flow_turns_waiting',
  help: 'Calls waiting for their turn on a browser, in this replica',
  registers: [registry],
});

export function countToolCall(tool: string, outcome: string, ms: number): void {
  toolCalls.inc({ tool, outcome });
  toolSeconds.observe({ tool }, ms / 1000);
}

export function countBrowser(change: 'opened' | 'ended'): void {
  browsersOpen.inc(change === 'opened' ? 1 : -1);
}

export function countFlowRun(outcome: 'ok' | 'failed'): void {
  flowRuns.inc({ outcome });
}

export function countSecretBind(allowed: boolean): void {
  secretBinds.inc({ outcome: allowed ? 'allowed' : 'refused' });
}

/** A call starts waiting for its turn; the answer ends the wait (once, however often it is called). */
export function waitForTurn(): () => void {
  turnsWaiting.inc();
  let waiting = true;
  return () => {
    if (waiting) {
      waiting = false;
      turnsWaiting.dec();
    }
  };
}

export interface SlotCount {
  free: number;
  used: number;
}

/** The text Prometheus scrapes, with the Grid's slots as they are now (undefined: not answering). */
export async function metricsText(slots: SlotCount | undefined): Promise<string> {
  gridSlots.reset();
  if (slots) {
    gridSlots.set({ state: 'free' }, slots.free);
    gridSlots.set({ state: 'used' }, slots.used);
  }
  return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;
