import { EMAIL, PASSWORD, pages, STEP_COUNT, type Configuration, type TaskRun } from './task.js';
import { ToolFailed, type ToolCaller } from './tools-task.js';

export const FLOW_NAME = 'bench-twelve-steps';

/**
 * The reference task as one flow: steps 1–11 in a single run_flow call (its first navigate
 * opens the browser on demand), then end_browser, since a flow never opens or ends one.
 */
export function flowDocument(siteUrl: string): Record<string, unknown> {
  const url = pages(siteUrl);
  return {
    description: 'The performance.md reference task',
    steps: [
      { tool: 'navigate', args: { url: url.login } },
      { tool: 'write', args: { selector: { css: '#email' }, text: EMAIL } },
      { tool: 'write', args: { selector: { css: '#password' }, text: PASSWORD } },
      { tool: 'interact', args: { action: 'click', selector: { css: '#submit' } } },
      { id: 'greeting', tool: 'extract', args: { selector: { css: '#greeting' } }, return: true },
      { tool: 'interact', args: { action: 'click', selector: { css: '#to-table' } } },
      { id: 'rows', tool: 'extract', args: { selector: { css: '#data tbody tr' }, all: true }, return: true },
      { tool: 'navigate', args: { url: url.heavy } },
      { id: 'heavy', tool: 'extract', args: { selector: { css: '#heavy-title' } }, return: true },
      // Saved, because a report never carries an image: the bench reads the PNG from disk to check it.
      { id: 'shot', tool: 'screenshot', args: { save: true }, return: true },
      { tool: 'navigate', args: { action: 'back' } },
    ],
  };
}

export function flowConfiguration(
  id: string,
  label: string,
  caller: () => ToolCaller,
  siteUrl: string,
  readScreenshot: (name: string) => Promise<Buffer>,
): Configuration {
  let saved = false;
  return {
    id,
    label,
    run: async () => {
      const tools = caller();
      if (!saved) {
        await tools.call('save_flow', { name: FLOW_NAME, document: flowDocument(siteUrl) });
        saved = true;
      }
      const started = performance.now();
      let report: Record<string, unknown>;
      try {
        report = (await tools.call('run_flow', { name: FLOW_NAME })).structured;
      } finally {
        await tools.call('end_browser', {});
      }
      const totalMs = performance.now() - started;
      if (report.status !== 'ok') {
        throw new ToolFailed(`run_flow answered ${JSON.stringify(report.failed ?? report)}`);
      }
      const returned = (report.returned ?? {}) as Record<string, Record<string, unknown>>;
      const rows = returned.rows?.values;
      const run: TaskRun = {
        stepMs: Array.from({ length: STEP_COUNT }, () => undefined),
        totalMs,
        answers: {
          greeting: String(returned.greeting?.value),
          rows: Array.isArray(rows) ? (rows as (string | null)[]) : [],
          heavyTitle: String(returned.heavy?.value),
          png: await readScreenshot(String(returned.shot?.name)),
          backUrl: typeof report.url === 'string' ? report.url : undefined,
        },
      };
      return run;
    },
  };
}
