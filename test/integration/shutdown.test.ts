import { gridFetch } from '../../src/grid/grid.js';
import { spawn } from 'node:child_process';
import { describe, expect, it, inject } from 'vitest';
import { startFixtureSite } from '../fixtures/site.js';
import { gridSessionIds, rest, sharedGridEnv } from '../helpers/server.js';

/**
 * The Grid id of the browser that a server opened on the site, among the sessions new since
 * `before`: the server's handle is no Grid id, and other files open browsers on the shared Grid
 * meanwhile, so each new session is asked for its page.
 */
async function gridIdOnSite(before: Set<string>, siteUrl: string): Promise<string | undefined> {
  for (const id of await gridSessionIds()) {
    if (before.has(id)) {
      continue;
    }
    const page = await gridFetch(`${inject('gridUrl')}/session/${id}/url`, { method: 'GET' })
      .then((response) => response.json() as Promise<{ value?: unknown }>)
      .catch(() => undefined);
    if (typeof page?.value === 'string' && page.value.startsWith(siteUrl)) {
      return id;
    }
  }
  return undefined;
}

describe('selenium-flow serve on SIGTERM', () => {
  it('exits within seconds even while a call is stuck on the browser', async () => {
    // node itself (not npx), so the signal reaches the server and the exit is its own.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--log-level', 'silent'],
      {
        env: {
          ...(process.env as Record<string, string>),
          ...sharedGridEnv(),
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
    const before = await gridSessionIds();
    const opened = await rest(base, '/browser/open-session', {});
    const sessionId = opened.body.session_id as string;
    let gridId: string | undefined;
    try {
      await rest(base, '/browser/navigate', { url: `${site.url}/table.html`, session_id: sessionId });
      gridId = await gridIdOnSite(before, site.url);
      expect(gridId, 'the browser the server opened, found on the Grid').toBeDefined();
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
      // A node busy with the stuck script may refuse the first DELETE: ask until the Grid lets it go.
      for (let tries = 0; gridId && tries < 3 && (await gridSessionIds()).has(gridId); tries += 1) {
        await gridFetch(`${inject('gridUrl')}/session/${gridId}`, { method: 'DELETE' }).catch(() => undefined);
      }
      await site.close();
    }
    // The Grid's /status frees the slot a moment after the DELETE answers.
    await expect.poll(async () => (await gridSessionIds()).has(gridId ?? ''), { timeout: 10_000 }).toBe(false);
  });
});
