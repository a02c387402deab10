import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createServer, type HttpServer } from '../../src/server.js';

const TOKEN = 'token-for-the-request-id-test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let server: HttpServer;

beforeAll(() => {
  // No Grid: nothing here reaches one.
  const config = loadConfig({}, { LOG_LEVEL: 'silent', MCP_AUTH_TOKEN: TOKEN });
  server = createServer(config, 'http://127.0.0.1:9');
});
afterAll(() => server.close());

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'request-id-test', version: '1' } },
};

describe('request ids', () => {
  it('answers every request with a new random X-Request-Id: a route, a refusal, a 404, a bad URL and /mcp', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const answers = [
      await server.app.inject({ url: '/health' }),
      await server.app.inject({ url: '/workspace' }),
      await server.app.inject({ url: '/openapi.json', headers: { host: 'rebound.example' } }),
      await server.app.inject({ url: '/no-such-route', headers: auth }),
      await server.app.inject({ url: '/files/%zz', headers: auth }),
      await server.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: INITIALIZE,
      }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 403, 404, 400, 200]);
    const ids = answers.map((a) => a.headers['x-request-id']);
    for (const id of ids) {
      expect(id).toMatch(UUID);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps a caller's X-Request-Id when it is short and plain, and replaces any other", async () => {
    const sent = async (id: string) =>
      (await server.app.inject({ url: '/health', headers: { 'x-request-id': id } })).headers['x-request-id'];
    for (const plain of ['4bf92f3577b34da6a3ce929d0e0e4736', 'lb-1.trace:0042_a', 'a', 'x'.repeat(128)]) {
      expect(await sent(plain)).toBe(plain);
    }
    for (const unplain of ['', 'x'.repeat(129), 'https://example.com/?token=abc', 'two words', 'a"b', 'é']) {
      expect(await sent(unplain)).toMatch(UUID);
    }
  });
});
