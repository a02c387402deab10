import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { gridFetch } from '../../src/grid/grid.js';
import { poll } from '../../src/poll.js';
import { spawnReplica } from '../helpers/replica.js';
import { gridIdOf, rest, startServer, type RunningServer } from '../helpers/server.js';

let a: RunningServer;
beforeAll(async () => {
  a = await startServer();
});
afterAll(async () => {
  await a.close();
});

/**
 * Waits until a script answers true in the browser, asked through the Grid itself: beside the
 * server's calls, so it does not wait for the workspace's turn.
 */
async function inPageOf(gridId: string | undefined, script: string): Promise<void> {
  const url = `${inject('gridUrl')}/session/${gridId ?? ''}/execute/sync`;
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ script, args: [] }),
  };
  const held = await poll(
    async () => ((await (await gridFetch(url, init)).json()) as { value?: unknown }).value === true || undefined,
    5_000,
    20,
  );
  if (!held) {
    throw new Error(`the page never answered true to: ${script}`);
  }
}

describe('a workspace and its browser', () => {
  it('is held by a handle only its own server (or replicas on its Redis) knows, not by any Grid id', async () => {
    const opened = await rest(a.url, '/browser/open-session', {});
    const handle = opened.body.session_id as string;
    await rest(a.url, '/browser/navigate', { url: `${inject('siteUrl')}/table.html`, session_id: handle });
    // Another server, as its own OS process (group) on the same Grid.
    const second = await spawnReplica({ GRID_URL: inject('gridUrl') });
    try {
      // Another server on the same Grid, with its own store: the handle names nothing there.
      const read = await rest(second.url, '/browser/extract', { selector: { css: 'h1' }, session_id: handle });
      expect(read.status).toBe(404);
      expect(JSON.stringify(read.body)).toContain('open_session');
      expect((await rest(a.url, '/browser/extract', { selector: { css: 'h1' }, session_id: handle })).body).toEqual({
        value: 'Data table',
      });
    } finally {
      await second.kill('SIGTERM');
      await rest(a.url, '/browser/end-browser', { session_id: handle });
    }
  });

  it('answers 404 with the remedy once the Grid has reaped its browser, and detaches the workspace', async () => {
    const ws = { 'X-Workspace': 'reaped' };
    await rest(a.url, '/browser/open-session', {}, ws);
    await gridFetch(`${inject('gridUrl')}/session/${(await gridIdOf(a, 'reaped')) ?? ''}`, { method: 'DELETE' });
    const after = await rest(a.url, '/browser/extract', { selector: { css: 'body' } }, ws);
    expect(after.status).toBe(404);
    expect(after.body.error).toMatchObject({ code: 'not_found' });
    expect(JSON.stringify(after.body)).toContain('open_session');
    const current = await rest(a.url, '/workspace', undefined, ws);
    expect(current.body).toMatchObject({ workspace: 'reaped', mode: 'saved', browser: null });
  });

  it('opens a browser on demand for an acting tool, but never for a read', async () => {
    const ws = { 'X-Workspace': 'on-demand' };
    const read = await rest(a.url, '/browser/outline', {}, ws);
    expect(read.status).toBe(404);
    expect((await rest(a.url, '/workspace', undefined, ws)).body.browser).toBeNull();
    const act = await rest(a.url, '/browser/navigate', { url: `${inject('siteUrl')}/login.html` }, ws);
    expect(act.body).toMatchObject({ title: 'Login' });
    const current = await rest(a.url, '/workspace', undefined, ws);
    expect(current.body).toMatchObject({
      url: `${inject('siteUrl')}/login.html`,
      title: 'Login',
      browser: { alive: true },
    });
    await rest(a.url, '/browser/end-browser', {}, ws);
  });

  it('makes two concurrent calls on one workspace take turns', async () => {
    const ws = { 'X-Workspace': 'turns' };
    await rest(a.url, '/browser/navigate', { url: `${inject('siteUrl')}/login.html` }, ws);
    // The first call waits for a flag only the second call sets. Taking turns, the second
    // runs after the first has given up; interleaved, the first would see the flag.
    const first = rest(
      a.url,
      '/browser/assert',
      { script: 'window.__waiting = true; return window.__flag === true', timeout: 1, message: 'flag not set' },
      ws,
    );
    await inPageOf(await gridIdOf(a, 'turns'), 'return window.__waiting === true'); // the first call holds the turn

    const second = rest(a.url, '/browser/execute-script', { script: 'window.__flag = true; return 1' }, ws);
    const [waited, set] = await Promise.all([first, second]);
    expect(waited.status).toBe(504);
    expect(JSON.stringify(waited.body)).toContain('flag not set');
    expect(set.body).toMatchObject({ result: 1 });
    await rest(a.url, '/browser/end-browser', {}, ws);
  });

  it('remembers the window size when a workspace reopens its browser', async () => {
    const ws = { 'X-Workspace': 'reopen' };
    await rest(a.url, '/browser/open-session', { width: 900, height: 700 }, ws);
    const first = await gridIdOf(a, 'reopen');
    const again = await rest(a.url, '/browser/open-session', {}, ws);
    expect(again.status).toBe(200);
    const current = await rest(a.url, '/workspace', undefined, ws);
    expect(current.body).toMatchObject({ window: { width: 900, height: 700 }, browser: { alive: true } });
    expect(await gridIdOf(a, 'reopen')).not.toBe(first);
    await rest(a.url, '/browser/end-browser', {}, ws);
  });
});
