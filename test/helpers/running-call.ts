import { expect } from 'vitest';
import { startFixtureSite } from '../fixtures/site.js';
import { rest } from './server.js';

/**
 * An agent's call that is running now: a script in the workspace's browser tells a fixture site
 * of its own that it runs, then holds the call open for `ms` and answers 7. Resolves once the
 * call runs (the browser's turn is taken), with its answer still to come.
 */
export async function callHeldOpen(
  base: string,
  headers: Record<string, string>,
  ms: number,
): Promise<{ answer: Promise<{ status: number; body: Record<string, unknown> }>; close(): Promise<void> }> {
  const site = await startFixtureSite();
  const answer = rest(
    base,
    '/browser/execute-script',
    {
      script: `fetch(${JSON.stringify(`${site.url}/collect?event=running`)}, { method: 'POST', mode: 'no-cors', body: '' }); return new Promise((resolve) => setTimeout(() => resolve(7), ${ms}))`,
    },
    headers,
  );
  try {
    await expect.poll(() => site.received.some((r) => r.event === 'running'), { timeout: 20_000 }).toBe(true);
  } catch (error) {
    await site.close();
    throw error;
  }
  return { answer, close: () => site.close() };
}
