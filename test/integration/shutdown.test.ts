import { gridFetch } from '../../src/grid/grid.js';
import { spawn } from 'node:child_process';
import { describe, expect, it, inject } from 'vitest';
import { startFixtureSite } from '../fixtures/site.js';
import { rest } from '../helpers/server.js';

describe('selenium-flow serve on SIGTERM', () => {
  it('exits within seconds even while a call is stuck on the browser', async () => {
    // node itself (not npx), so the signal reaches the server and the exit is its own.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--log-level', 'silent'],
      {
        env: {
          ...(process.env as Record<string, string>),
          GRID_URL: inject('gridUrl'),
          SE_OFFLINE: 'true',
          CALL_TIMEOUT: '30',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const base = await new Promise<string>((resolve, reject) => {
      const find = () => {
        const match = /MCP:\s+(http:\/\/[^/\s]+)\/mcp/.exec(output.join(''));
        if (match?.[1]) {
          resolve(match[1]);
        }
      };
      child.stdout.on('data', find);
      void exited.then(() => reject(new Error(`the server exited before serving:\n${output.join('')}`)));
    });
    const site = await startFixtureSite();
    const opened = await rest(base, '/browser/open-session', {});
    const sessionId = opened.body.session_id as string;
    try {
      await rest(base, '/browser/navigate', { url: `${site.url}/table.html`, session_id: sessionId });
      // A script that never settles holds the call (and chromedriver) until WebDriver's script timeout, 24 s.
      // It first tells the page's site that it runs: the signal goes once the call is in the browser.
      const stuck = rest(base, '/browser/execute-script', {
        script: "fetch('/collect?event=stuck', { method: 'POST', body: '' }); return new Promise(() => {})",
        session_id: sessionId,
      }).catch(() => 'cut off');
      await expect.poll(() => site.received.some((r) => r.event === 'stuck'), { timeout: 20_000 }).toBe(true);
      const signalled = Date.now();
      child.kill('SIGTERM');
      await exited;
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(await stuck).toBe('cut off');
    } finally {
      child.kill('SIGKILL');
      // The browser outlives its server by design (records may be shared); end it here, before its site:
      // the site's close waits for the browser's kept-alive connection.
      await gridFetch(`${inject('gridUrl')}/session/${sessionId}`, { method: 'DELETE' }).catch(() => undefined);
      await site.close();
    }
  });
});
