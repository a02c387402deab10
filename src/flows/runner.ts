import { splitImage, type Capability } from '../capabilities/capability.js';
import type { AsStep } from '../capabilities/flows-view.js';
import { errorBody, TimedOut } from '../errors.js';
import type { FlowDocument } from './document.js';
import { MAX_REPORT_BYTES } from '../limits.js';
import { substitute } from './references.js';

export type StepCall = (
  tool: string,
  args: Record<string, unknown>,
  step: Required<AsStep>,
) => Promise<Record<string, unknown>>;

export interface StepReport {
  n: number;
  id: string | null;
  tool: string;
  ok: boolean;
  summary: string;
  error?: { code: string; message: string };
  result?: Record<string, unknown>;
}

export interface RunReport {
  flow: string;
  status: 'ok' | 'failed';
  steps_run: number;
  steps_total: number;
  steps: StepReport[];
  returned?: Record<string, Record<string, unknown>>;
  url?: string;
  title?: string;
  result?: Record<string, unknown>;
  failed?: { n: number; id: string | null; tool: string; error: { code: string; message: string }; url: string | null };
  /** step results left out of `steps` and `returned`: the report would have passed MAX_REPORT_BYTES */
  omitted?: string[];
}

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
  // 200 steps each answering a megabyte would be a 200 MB report, held in memory and read by a model.
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
  for (const [index, step] of document.steps.entries()) {
    const n = index + 1;
    const id = step.id ?? null;
    report.steps_run = n;
    // An act reads the page it leaves (and write its value) only to answer, a round trip each;
    // a compact report shows only a returned result and the last step's.
    const answerUnread = !verbose && !step.return && n < document.steps.length;
    try {
      const args = substitute(step.args, options.params);
      // The step's own deadline (CALL_TIMEOUT) never outlasts the run's: a hung page is recovered by then.
      const call = options.call(step.tool, args, { flow: options.name, step: step.id ?? n, answerUnread, deadline });
      const row = rows.get(step.tool);
      const answer = await withinDeadline(call, deadline);
      // Images never travel in a report: it is read by a model, and an image costs thousands of tokens.
      const result = row ? splitImage(row, answer).rest : answer;
      last = result;
      const name = step.id ?? `step${n}`;
      const copies = (verbose ? 1 : 0) + (step.return ? 1 : 0);
      const shown = copies > 0 && keep(name, result, copies);
      report.steps.push({
        n,
        id,
        tool: step.tool,
        ok: true,
        summary: row ? row.summary(args, result) : 'done',
        ...(verbose && shown ? { result } : {}),
      });
      if (step.return && shown) {
        returned[name] = result;
      }
    } catch (err) {
      const error = errorBody(err).body.error;
      report.steps.push({ n, id, tool: step.tool, ok: false, summary: 'failed', error });
      if (step.onError === 'continue' && !(err instanceof TimedOutRun)) {
        continue;
      }
      report.status = 'failed';
      report.failed = { n, id, tool: step.tool, error, url: await options.currentUrl().catch(() => null) };
      break;
    }
  }
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
  return report;
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
