import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';

// The official suite, run from node_modules (no network: it only talks to this server).
const cli = join(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'),
  '..',
  'dist',
  'index.js',
);

let running: RunningServer;
beforeAll(async () => {
  // One scenario calls the first tool listed (open_session) and waits at most 30 s for it. The
  // shared Grid may be full: a new browser then waits its GRID_SLOT_WAIT and is refused in time.
  running = await startServer({ GRID_SLOT_WAIT: '3' });
});
afterAll(async () => {
  // What that call opened, no client will end: the server ends it (an operator's act).
  for (const [, record] of await running.server.store.heldBy('anonymous')) {
    await running.server.grid.end(record.gridId).catch(() => undefined);
  }
  await running.close();
});

/** Runs the suite at one revision's wire, as that revision requires it; answers its report. */
async function conformance(revision: string): Promise<string> {
  const run = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      './test/conformance/node20.mjs',
      cli,
      'server',
      '--url',
      `${running.url}/mcp`,
      '--requirements',
      revision,
      '--expected-failures',
      'test/conformance/expected-failures.yaml',
    ],
    { timeout: 120_000 },
  ).catch((err: { stdout?: string; code?: number }) => ({ stdout: err.stdout ?? '', code: err.code }));
  // eslint-disable-next-line no-control-regex -- the suite colours its report with ANSI escapes
  return run.stdout.replace(/\x1b\[[0-9;]*m/g, '');
}

describe('the official MCP conformance suite (@modelcontextprotocol/conformance)', () => {
  it.each([
    ['2025-11-25', ['server-initialize', 'ping', 'server-session-lifecycle']],
    ['2026-07-28', ['sep-2164-resource-not-found', 'http-header-validation']],
  ])(
    'passes every %s scenario that applies; the checks that do not are listed, with why, in test/conformance/expected-failures.yaml',
    async (revision, applies) => {
      const output = await conformance(revision);
      expect(output, output).toContain('Baseline check passed: all failures are expected.');
      const everyEra = ['tools-list', 'completion-complete', 'resources-list', 'server-sse-multiple-streams'];
      for (const scenario of [...applies, ...everyEra, 'dns-rebinding-protection']) {
        expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
      }
    },
    150_000,
  );
});
