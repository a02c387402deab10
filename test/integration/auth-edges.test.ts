import {
  Client,
  discoverOAuthMetadata,
  discoverOAuthProtectedResourceMetadata,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';

const TOKEN = 'auth-edges-token-0123456789';
let plain: RunningServer;
let prefixed: RunningServer;

beforeAll(async () => {
  [plain, prefixed] = await Promise.all([
    startServer({ MCP_AUTH_TOKEN: TOKEN }),
    startServer({ MCP_AUTH_TOKEN: TOKEN, ROUTE_PREFIX: '/tools/selenium' }),
  ]);
});
afterAll(async () => {
  await Promise.all([plain?.close(), prefixed?.close()]);
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

describe('a 401 says which scheme to answer with', () => {
  it('carries WWW-Authenticate: Bearer on /mcp, REST and the admin API, and no OAuth metadata', async () => {
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const answers = await Promise.all([
      fetch(`${plain.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(initialize) }),
      fetch(`${plain.url}/workspace`),
      fetch(`${plain.url}/admin/api/workspaces`),
      fetch(`${prefixed.url}/tools/selenium/mcp`, { method: 'POST', headers: mcpHeaders, body: '{}' }),
    ]);
    for (const answer of answers) {
      expect(answer.status, answer.url).toBe(401);
      expect(answer.headers.get('www-authenticate'), answer.url).toBe('Bearer realm="selenium-flow"');
    }
    const wrong = await fetch(`${plain.url}/workspace`, { headers: { authorization: 'Bearer not-it' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="selenium-flow", error="invalid_token"');
    // A right token is never challenged.
    const right = await fetch(`${plain.url}/workspace`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect([right.status, right.headers.get('www-authenticate')]).toEqual([200, null]);
  });
});

describe('OAuth discovery answers 404, so clients ask for a header', () => {
  it('answers every discovery and registration address with a 404 that names the header, without a token', async () => {
    const addresses: Array<[string, string, string]> = [
      ['GET', plain.url, '/.well-known/oauth-protected-resource'],
      ['GET', plain.url, '/.well-known/oauth-protected-resource/mcp'],
      ['GET', plain.url, '/.well-known/oauth-authorization-server'],
      ['GET', plain.url, '/.well-known/oauth-authorization-server/mcp'],
      ['GET', plain.url, '/.well-known/openid-configuration'],
      ['POST', plain.url, '/register'],
      ['GET', prefixed.url, '/.well-known/oauth-protected-resource/tools/selenium/mcp'],
      ['GET', prefixed.url, '/tools/selenium/.well-known/openid-configuration'],
      ['POST', prefixed.url, '/tools/selenium/register'],
    ];
    for (const [method, base, path] of addresses) {
      const answer = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(answer.status, path).toBe(404);
      const body = (await answer.json()) as { error: { message: string } };
      expect(body.error.message, path).toContain('Authorization: Bearer');
    }
  });

  it('makes the MCP SDK conclude that the server has no OAuth, where a 401 made discovery fail', async () => {
    for (const url of [`${plain.url}/mcp`, `${prefixed.url}/tools/selenium/mcp`]) {
      await expect(discoverOAuthProtectedResourceMetadata(url), url).rejects.toThrow(/does not implement OAuth/);
      expect(await discoverOAuthMetadata(url), url).toBeUndefined();
    }
  });

  it('gives an OAuth-minded MCP client the header sentence; with the header it connects', async () => {
    // What Claude Code does on a 401: discover, register, sign in. With nothing to discover the SDK
    // still tries the origin's /register; its 404 now carries the remedy instead of a 401.
    const provider = {
      redirectUrl: 'http://127.0.0.1:9/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'auth-edges' },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: () => undefined,
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    };
    const refused = await connect(plain.url, {}, provider).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(refused?.message).toContain('(HTTP 404)');
    expect(refused?.message).toContain('does not use OAuth; send its token as a header, Authorization: Bearer');
    // Without a provider, the 401's own sentence.
    const plainRefusal = await connect(plain.url, {}).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(plainRefusal?.message).toContain('send Authorization: Bearer');
    const client = await connect(plain.url, { authorization: `Bearer ${TOKEN}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});

async function connect(base: string, headers: Record<string, string>, authProvider?: object): Promise<Client> {
  const client = new Client({ name: 'auth-edges', version: '1.0.0' });
  const options = { requestInit: { headers }, ...(authProvider ? { authProvider: authProvider as never } : {}) };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), options));
  return client;
}
