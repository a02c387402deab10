import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_CAPABILITIES } from '../../src/capabilities/index.js';
import { loadConfig } from '../../src/config.js';
import { PLAIN_ROUTES } from '../../src/http/plain-routes.js';
import { createServer, type HttpServer } from '../../src/server.js';
import { messageOf } from '../helpers/admin.js';

const MAIN = 'main-token-for-the-caller-test';
const ALICE = 'alice-token-for-the-caller-test';
let server: HttpServer;

/** Every route that answers a bearer token: the tools, the agent's plain routes and /mcp. */
const BEARER_ROUTES = [
  ...REST_CAPABILITIES.map((c) => ({ method: c.http.method, path: c.http.path })),
  ...PLAIN_ROUTES.filter((r) => r.access === 'bearer').map((r) => ({ method: r.method, path: r.path })),
  { method: 'POST' as const, path: '/mcp' },
].map(({ method, path }) => ({ method, url: path.replace(/\{\w+\}/g, 'x') }));

beforeAll(() => {
  const tokens = join(mkdtempSync(join(tmpdir(), 'caller-unit-')), 'tokens.yaml');
  writeFileSync(tokens, JSON.stringify({ tokens: [{ name: 'alice', token: ALICE, workspaces: ['alice-*'] }] }));
  // No Grid: every request here is refused before anything would reach one.
  const config = loadConfig({}, { LOG_LEVEL: 'silent', MCP_AUTH_TOKEN: MAIN, TOKENS_FILE: tokens });
  server = createServer(config, 'http://127.0.0.1:9');
});
afterAll(() => server.close());

const ask = (route: (typeof BEARER_ROUTES)[number], headers: Record<string, string>) =>
  server.app.inject({ ...route, headers: { 'content-type': 'application/json', ...headers }, payload: '{}' });

describe('the caller of a request', () => {
  it('is decided on every bearer route before its handler runs: the token first, then the workspace', async () => {
    expect(BEARER_ROUTES.length).toBeGreaterThan(REST_CAPABILITIES.length);
    for (const route of BEARER_ROUTES) {
      const name = `${route.method} ${route.url}`;
      const untokened = await ask(route, { 'x-workspace': '../etc' });
      expect(untokened.statusCode, name).toBe(401);
      const misnamed = await ask(route, { authorization: `Bearer ${MAIN}`, 'x-workspace': '../etc' });
      expect(misnamed.statusCode, name).toBe(400);
      expect(messageOf(misnamed.json()), name).toMatch(/^Invalid workspace name: A workspace name is 1-64/);
      const forbidden = await ask(route, { authorization: `Bearer ${ALICE}`, 'x-workspace': 'bob' });
      expect(forbidden.statusCode, name).toBe(403);
      expect(messageOf(forbidden.json()), name).toMatch(/may not use workspace "bob"/);
    }
  });

  it('is named on the MCP URL too, and only there', async () => {
    const mcp = await server.app.inject({
      method: 'POST',
      url: '/mcp?workspace=bob',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(mcp.statusCode).toBe(403);
    // A tool route reads ?workspace= as nothing of the caller's: the name is the header's alone.
    const rest = await server.app.inject({
      method: 'GET',
      url: '/workspace?workspace=bob',
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(rest.statusCode, rest.body).not.toBe(403);
  });
});
