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
  running = await startServer();
});
afterAll(async () => {
  await running.close();
});

describe('the official MCP conformance suite (@modelcontextprotocol/conformance)', () => {
  it('passes every server scenario that applies; the ones that do not are listed, with why, in test/conformance/expected-failures.yaml', async () => {
    const run = await promisify(execFile)(
      process.execPath,
      [cli, 'server', '--url', `${running.url}/mcp`, '--expected-failures', 'test/conformance/expected-failures.yaml'],
      { timeout: 120_000 },
    ).catch((err: { stdout?: string; code?: number }) => ({ stdout: err.stdout ?? '', code: err.code }));
    // eslint-disable-next-line no-control-regex -- the suite colours its report with ANSI escapes
    const output = run.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    expect(output, output).toContain('Baseline check passed: all failures are expected.');
    for (const applies of ['server-initialize', 'ping', 'tools-list', 'resources-list', 'completion-complete']) {
      expect(output).toMatch(new RegExp(`✓ ${applies}: [1-9]\\d* passed, 0 failed`));
    }
  }, 150_000);
});
