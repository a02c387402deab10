import { EMAIL, PASSWORD, StepClock, pages, type Configuration, type StepObserver, type TaskRun } from './task.js';

/** One tool answer, as a model would see it. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  /** bytes of every text block (images excluded): what a model reads */
  textBytes: number;
  /** the same text in tokens (gpt-tokenizer, o200k_base: GPT-4o's and GPT-5's encoding) */
  textTokens: number;
  /** the first image block, decoded */
  image?: Buffer;
}

/** Anything that calls selenium-flow tools by name: an MCP client (HTTP, stdio) or the in-process call path. */
export interface ToolCaller {
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
}

export class ToolFailed extends Error {}

interface Call {
  name: string;
  args: Record<string, unknown>;
}

/**
 * The twelve calls an agent that knows its selectors makes, in a saved workspace (the first
 * acting call opens the browser on demand, so "open a session" and "go to the login page"
 * are one call).
 */
export function twelveCalls(siteUrl: string): Call[] {
  const url = pages(siteUrl);
  return [
    { name: 'navigate', args: { url: url.login } },
    { name: 'write', args: { selector: { css: '#email' }, text: EMAIL } },
    { name: 'write', args: { selector: { css: '#password' }, text: PASSWORD } },
    { name: 'interact', args: { action: 'click', selector: { css: '#submit' } } },
    { name: 'extract', args: { selector: { css: '#greeting' } } },
    { name: 'interact', args: { action: 'click', selector: { css: '#to-table' } } },
    { name: 'extract', args: { selector: { css: '#data tbody tr' }, all: true } },
    { name: 'navigate', args: { url: url.heavy } },
    { name: 'extract', args: { selector: { css: '#heavy-title' } } },
    { name: 'screenshot', args: {} },
    { name: 'navigate', args: { action: 'back' } },
    { name: 'end_browser', args: {} },
  ];
}

export function toolsConfiguration(
  id: string,
  label: string,
  caller: () => ToolCaller,
  siteUrl: string,
  informational = false,
): Configuration {
  return { id, label, informational, run: (beforeStep) => runTwelveCalls(caller(), siteUrl, beforeStep) };
}

export async function runTwelveCalls(caller: ToolCaller, siteUrl: string, beforeStep?: StepObserver): Promise<TaskRun> {
  const calls = twelveCalls(siteUrl);
  const clock = new StepClock(beforeStep);
  const answers: ToolAnswer[] = [];
  let ended = false;
  try {
    for (const call of calls) {
      answers.push(await clock.step(() => caller.call(call.name, call.args)));
      ended = call.name === 'end_browser';
    }
  } finally {
    if (!ended) {
      // A failed round must not leave its browser on the Grid for the next one.
      await caller.call('end_browser', {}).catch(() => undefined);
    }
  }
  const at = (i: number) => answers[i]?.structured ?? {};
  const rows = at(6).values;
  const run: TaskRun = {
    stepMs: clock.stepMs,
    totalMs: clock.elapsed(),
    answers: {
      greeting: String(at(4).value),
      rows: Array.isArray(rows) ? (rows as (string | null)[]) : [],
      heavyTitle: String(at(8).value),
      png: answers[9]?.image ?? Buffer.alloc(0),
      backUrl: String(at(10).url),
    },
    textBytes: answers.map((a) => a.textBytes),
    textTokens: answers.map((a) => a.textTokens),
    argBytes: calls.map((c) => Buffer.byteLength(JSON.stringify(c.args))),
  };
  if (at(11).ended !== true) {
    throw new ToolFailed(`end_browser answered ${JSON.stringify(at(11))}, expected {"ended":true}.`);
  }
  return run;
}

/**
 * The same calls with network capture on from the moment the browser exists: capture_network is
 * called right after the first navigate, inside that step, so its own cost counts too.
 */
export class CapturingCaller implements ToolCaller {
  constructor(private readonly inner: ToolCaller) {}

  async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const answer = await this.inner.call(name, args);
    if (name === 'navigate' && args.url !== undefined) {
      await this.inner.call('capture_network', { on: true });
    }
    return answer;
  }
}
