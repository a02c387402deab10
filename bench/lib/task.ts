/**
 * The reference task of /work/shared/spec/performance.md, and what a configuration is.
 *
 * A configuration is anything that can run the twelve steps once and say how long each took:
 * the raw selenium-webdriver script, twelve MCP calls over HTTP or stdio, and later one
 * `run_flow` call. Adding a row to the tables is adding a `Configuration`.
 */

export const STEPS = [
  'open browser + login page',
  'type email',
  'type password',
  'click submit',
  'read heading',
  'click table link',
  'extract 50 rows',
  'open heavy page',
  'read heavy heading',
  'screenshot',
  'go back',
  'close',
] as const;

export const STEP_COUNT = STEPS.length;
export const EMAIL = 'bench@example.com';
export const PASSWORD = 'correct-horse-42';
export const WINDOW = { width: 1280, height: 900 };

export const pages = (siteUrl: string) => ({
  login: `${siteUrl}/login.html`,
  table: `${siteUrl}/table.html`,
  heavy: `${siteUrl}/heavy.html`,
});

/** What the task must have read; a fast run with a wrong answer fails the bench. */
export interface Answers {
  greeting: string;
  rows: readonly (string | null)[];
  heavyTitle: string;
  png: Buffer;
  /** where "go back" landed, when the configuration learns it for free */
  backUrl?: string;
}

export interface TaskRun {
  /** one entry per step; undefined where a configuration cannot time a step on its own (one flow) */
  stepMs: (number | undefined)[];
  /** wall clock of the whole task, measured around it */
  totalMs: number;
  answers: Answers;
  /** MCP configurations: bytes of the text blocks each step answered (images excluded) */
  textBytes?: number[];
  /** the same, in tokens (o200k_base) */
  textTokens?: number[];
  /** MCP configurations: bytes of each call's arguments (what the model writes) */
  argBytes?: number[];
  /** a new server per round (bench/lib/cold-task.ts): spawn → tools/list answered, before the task */
  startMs?: number;
}

export interface Configuration {
  /** short id, used on the command line and in JSON */
  id: string;
  /** what the table shows */
  label: string;
  /** shown in the tables, but not a product path (a variant of the floor, or a diagnostic) */
  informational?: boolean;
  /** the id of the raw script it is a ratio of: the floor on the same browser (default `raw`, Chromium) */
  baseline?: string;
  run(beforeStep?: StepObserver): Promise<TaskRun>;
}

/** Told the index of each step just before it starts (the profiler attributes work with it). */
export type StepObserver = (index: number) => void;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export class WrongAnswer extends Error {}

export function checkAnswers(configuration: Configuration, answers: Answers, siteUrl: string): void {
  const wrong: string[] = [];
  if (answers.greeting !== `Welcome, ${EMAIL}`) {
    wrong.push(`heading is ${JSON.stringify(answers.greeting)}, expected "Welcome, ${EMAIL}"`);
  }
  if (answers.rows.length !== 50) {
    wrong.push(`table has ${answers.rows.length} rows, expected 50`);
  } else if (!/\bItem 1\b/.test(answers.rows[0] ?? '') || !/\bItem 50\b/.test(answers.rows[49] ?? '')) {
    wrong.push(
      `table rows read wrong: first ${JSON.stringify(answers.rows[0])}, last ${JSON.stringify(answers.rows[49])}`,
    );
  }
  if (answers.heavyTitle !== 'Heavy page') {
    wrong.push(`heavy heading is ${JSON.stringify(answers.heavyTitle)}, expected "Heavy page"`);
  }
  if (answers.png.length < 1000 || !answers.png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    wrong.push(`screenshot is not a PNG (${answers.png.length} bytes)`);
  }
  if (answers.backUrl !== undefined && answers.backUrl !== pages(siteUrl).table) {
    wrong.push(`"go back" landed on ${answers.backUrl}, expected ${pages(siteUrl).table}`);
  }
  if (wrong.length > 0) {
    throw new WrongAnswer(`${configuration.label} got the task wrong: ${wrong.join('; ')}.`);
  }
}

/** Times each step of a task as it runs. */
export class StepClock {
  readonly stepMs: number[] = [];
  private readonly started = performance.now();

  constructor(private readonly beforeStep?: StepObserver) {}

  async step<T>(work: () => Promise<T>): Promise<T> {
    this.beforeStep?.(this.stepMs.length);
    const start = performance.now();
    const value = await work();
    this.stepMs.push(performance.now() - start);
    return value;
  }

  elapsed(): number {
    return performance.now() - this.started;
  }
}
