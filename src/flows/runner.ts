import { splitImage, type Capability } from '../capabilities/capability.js';
import type { StepOrigin } from './view.js';
import { BadRequest, Controlled, errorBody, TimedOut } from '../errors.js';
import type { RunReport, StepReport } from './answers.js';
import type { FlowDocument } from './document.js';
import { MAX_REPORT_BYTES } from '../limits.js';
import { countFlowRun } from '../ops/metrics.js';
import { STEP_PREFIX, stepsReadBy, stepValue, substitute } from './references.js';

export type StepCall = (
  tool: string,
  args: Record<string, unknown>,
  step: StepOrigin,
) => Promise<Record<string, unknown>>;

export interface RunOptions {
  name: string;
  document: FlowDocument;
  /** the rows the document's steps name (parseFlow has checked each exists) */
  capabilities: readonly Capability[];
  params: Record<string, unknown>;
  verbose: boolean;
  timeoutMs: number;
  call: StepCall;
  /** where the browser is, for a failure report (read only: a step that timed out still holds the turn) */
  currentUrl: () => Promise<string | null>;
  /** where the browser is, for a run whose last step did not answer it */
  endPage: () => Promise<{ url: string; title: string } | null>;
  /** told as each step ends: for progress notifications */
  onStep?: (report: StepReport, total: number) => void;
}

/**
 * Runs a flow straight through, no model in the loop: each step is an ordinary tool call
 * through the one call path, so turns, validation and errors are exactly a direct call's.
 */
export async function runFlow(options: RunOptions): Promise<RunReport> {
  const { document, verbose } = options;
  const deadline = Date.now() + options.timeoutMs;
  const report: RunReport = {
    flow: options.name,
    status: 'ok',
    steps_run: 0,
    steps_total: document.steps.length,
    steps: [],
  };
  const rows = new Map(options.capabilities.map((c) => [c.name, c]));
  const returned: Record<string, Record<string, unknown>> = {};
  let last: Record<string, unknown> | undefined;
  const { keep, omitted } = reportBudget();
  // `${steps.<id>}` values, apart from params so no param can pose as a step's value.
  const values: Record<string, string> = {};
  const read = new Set(document.steps.flatMap((s) => stepsReadBy(s.args)));
  // Each step is told as it lands in the report.
  const record = (step: StepReport) => {
    report.steps.push(step);
    options.onStep?.(step, document.steps.length);
  };
  for (const [index, step] of document.steps.entries()) {
    const n = index + 1;
    const id = step.id ?? null;
    report.steps_run = n;
    // An act reads the page it leaves (and write its value) only to answer, a round trip each;
    // a compact report shows only a returned result, the last step's, and values later steps read.
    const answerUnread = !verbose && !step.return && n < document.steps.length && !(id && read.has(id));
    try {
      const args = substitute(step.args, { ...paramsOnly(options.params), ...valuesFor(step.args, values) });
      // The step's own deadline (CALL_TIMEOUT) never outlasts the run's: a hung page is recovered by then.
      const call = options.call(step.tool, args, { flow: options.name, step: step.id ?? n, answerUnread, deadline });
      const row = rows.get(step.tool);
      const answer = await withinDeadline(call, deadline);
      // Images never travel in a report: it is read by a model, and an image costs thousands of tokens.
      const result = row ? splitImage(row, answer).rest : answer;
      last = result;
      if (id) {
        values[STEP_PREFIX + id] = stepValue(result);
      }
      const name = step.id ?? `step${n}`;
      const copies = (verbose ? 1 : 0) + (step.return ? 1 : 0);
      const shown = copies > 0 && keep(name, result, copies);
      record({
        n,
        id,
        tool: step.tool,
        ok: true,
        summary: row ? row.summary(args, result) : 'done',
        ...(typeof result.selector_used === 'number' ? { selector_used: result.selector_used } : {}),
        ...(verbose && shown ? { result } : {}),
      });
      if (step.return && shown) {
        returned[name] = result;
      }
    } catch (err) {
      const error = errorBody(err).body.error;
      record({ n, id, tool: step.tool, ok: false, summary: 'failed', error });
      // A person took the browser: carrying on would drive it under their hands.
      if (step.onError === 'continue' && !(err instanceof TimedOutRun) && !(err instanceof Controlled)) {
        continue;
      }
      report.status = 'failed';
      report.failed = { n, id, tool: step.tool, error, url: await options.currentUrl().catch(() => null) };
      break;
    }
  }
  return finish(report, options, { returned, omitted, last });
}

/** 200 steps each answering a megabyte would be a 200 MB report, held in memory and read by a model. */
function reportBudget() {
  let kept = 0;
  const omitted: string[] = [];
  const keep = (name: string, result: Record<string, unknown>, copies: number) => {
    const bytes = Buffer.byteLength(JSON.stringify(result)) * copies;
    if (kept + bytes > MAX_REPORT_BYTES) {
      omitted.push(name);
      return false;
    }
    kept += bytes;
    return true;
  };
  return { keep, omitted };
}

/** The report's end: what the steps returned, what was left out, the last result and the page now. */
async function finish(
  report: RunReport,
  options: RunOptions,
  run: { returned: Record<string, Record<string, unknown>>; omitted: string[]; last?: Record<string, unknown> },
): Promise<RunReport> {
  const { returned, omitted, last } = run;
  if (Object.keys(returned).length > 0) {
    report.returned = returned;
  }
  if (omitted.length > 0) {
    report.omitted = omitted;
  }
  if (last) {
    report.result = last;
  }
  const page = report.status === 'ok' ? await endPage(options, last, report.steps.at(-1)?.ok === true) : pageOf(last);
  if (page) {
    report.url = page.url;
    report.title = page.title;
  }
  countFlowRun(report.status);
  return report;
}

function paramsOnly(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([name]) => !name.startsWith(STEP_PREFIX)));
}

/** The values a step reads; one whose step failed (onError: continue) fails this step too. */
function valuesFor(args: Record<string, unknown>, values: Record<string, string>): Record<string, string> {
  const wanted: Record<string, string> = {};
  for (const id of stepsReadBy(args)) {
    const value = values[STEP_PREFIX + id];
    if (value === undefined) {
      throw new BadRequest(
        `\${steps.${id}} has no value: step "${id}" failed earlier in this run; fix that step, or stop reading it here.`,
      );
    }
    wanted[STEP_PREFIX + id] = value;
  }
  return wanted;
}

/** The page a run ended on: the last step's answer, or asked of the browser (steps skip reads nobody makes). */
async function endPage(options: RunOptions, last: Record<string, unknown> | undefined, lastStepAnswered: boolean) {
  const answered = lastStepAnswered ? pageOf(last) : undefined;
  return answered ?? (await options.endPage().catch(() => null));
}

function pageOf(result: Record<string, unknown> | undefined): { url: string; title: string } | undefined {
  return typeof result?.url === 'string' && typeof result.title === 'string'
    ? { url: result.url, title: result.title }
    : undefined;
}

class TimedOutRun extends TimedOut {}

/** A step cannot be cancelled once WebDriver has it; the run stops waiting for it instead. */
async function withinDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  const remaining = deadline - Date.now();
  const message = 'The flow ran out of time (FLOW_RUN_TIMEOUT); split it, or raise the limit.';
  if (remaining <= 0) {
    throw new TimedOutRun(message);
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimedOutRun(message)), remaining);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
