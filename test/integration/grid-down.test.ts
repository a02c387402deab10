import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { freePort } from '../../src/embedded-grid/index.js';
import { createServer, type HttpServer } from '../../src/server.js';
import { rest } from '../helpers/server.js';

let server: HttpServer;
let base: string;
beforeAll(async () => {
  // A port nothing listens on: the Grid is down.
  server = createServer(loadConfig({}, { LOG_LEVEL: 'silent' }), `http://127.0.0.1:${await freePort()}`);
  base = await server.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server.close();
});

describe('a Grid that is down', () => {
  it('is a 503 with the remedy for opening, acting and stateless calls, never a 500', async () => {
    const calls = [
      rest(base, '/browser/open-session', {}, { 'X-Workspace': 'down' }),
      rest(base, '/browser/navigate', { url: 'https://example.com/' }, { 'X-Workspace': 'down' }),
      rest(base, '/browser/open-session', {}),
    ];
    for (const answer of await Promise.all(calls)) {
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({
        code: 'grid_unavailable',
        message: expect.stringContaining('GRID_URL') as string,
      });
    }
    // A handle this server never handed out names no browser, whatever the Grid's state.
    const unknown = await rest(base, '/browser/extract', { session_id: 'abc' });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.body)).toContain('open_session');
  });

  it('makes /ready answer 503 while /health stays 200', async () => {
    expect((await rest(base, '/health')).status).toBe(200);
    const ready = await rest(base, '/ready');
    expect(ready).toEqual({ status: 503, body: { status: 'unavailable', grid: false, store: true } });
  });
});
