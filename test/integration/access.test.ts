import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';

type Answer = Record<string, unknown>;

/**
 * A request with exactly the headers given, Host included: what a page whose name was rebound to
 * 127.0.0.1 sends (its own name as Host), or what a page on another origin sends (its Origin).
 */
async function raw(
  base: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Answer }> {
  const url = new URL(base + path);
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: text === undefined ? 'GET' : 'POST',
        headers: { ...(text === undefined ? {} : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }), ...headers },
      },
      (response) => {
        let data = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (data += chunk));
        response.on('end', () => {
          let parsed: Answer = {};
          try {
            parsed = JSON.parse(data) as Answer;
          } catch {
            parsed = { text: data };
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'access-test', version: '1' } },
};

function messageOf(body: Answer): string {
  return (body.error as { message?: string } | undefined)?.message ?? '';
}

describe('Host and Origin (DNS rebinding, cross-site pages)', () => {
  let running: RunningServer;
  let hostPort: string;
  beforeAll(async () => {
    running = await startServer({ ALLOWED_HOSTS: 'sf.example,*.agents.example', ALLOWED_ORIGINS: 'https://console.example' });
    hostPort = new URL(running.url).port;
  });
  afterAll(async () => {
    await running.close();
  });

  it('refuses a foreign Host on /mcp, REST and files with a 403 naming ALLOWED_HOSTS', async () => {
    const evil = { host: `evil.example:${hostPort}` };
    for (const [path, body] of [
      ['/mcp', initialize],
      ['/workspace', undefined],
      ['/browser/navigate', { url: 'https://example.com', session_id: 'x' }],
      ['/files', undefined],
      ['/openapi.json', undefined],
    ] as const) {
      const refused = await raw(running.url, path, evil, body);
      expect(refused.status, path).toBe(403);
      expect(refused.body.error, path).toMatchObject({ code: 'forbidden' });
      expect(messageOf(refused.body), path).toContain('ALLOWED_HOSTS');
    }
  });

  it('refuses a foreign Origin, even with a loopback Host, with a 403 naming ALLOWED_ORIGINS', async () => {
    for (const origin of ['http://evil.example', `http://evil.example:${hostPort}`, 'http://127.0.0.1:1', 'null']) {
      for (const [path, body] of [
        ['/mcp', initialize],
        ['/workspace', undefined],
        ['/health', undefined],
      ] as const) {
        const refused = await raw(running.url, path, { host: `127.0.0.1:${hostPort}`, origin }, body);
        expect(refused.status, `${origin} ${path}`).toBe(403);
        expect(messageOf(refused.body), `${origin} ${path}`).toContain('ALLOWED_ORIGINS');
      }
    }
  });

  it('answers loopback names, the allowed hosts and origins, and requests without an Origin', async () => {
    for (const host of [`127.0.0.1:${hostPort}`, `localhost:${hostPort}`, `[::1]:${hostPort}`, `sf.example:${hostPort}`, 'a.agents.example']) {
      const answered = await raw(running.url, '/workspace', { host });
      expect(answered.status, host).toBe(200);
      expect(answered.body).toMatchObject({ mode: 'stateless' });
    }
    for (const origin of [`http://127.0.0.1:${hostPort}`, `http://localhost:${hostPort}`, 'https://console.example']) {
      expect((await raw(running.url, '/workspace', { host: `127.0.0.1:${hostPort}`, origin })).status, origin).toBe(200);
    }
    const mcp = await raw(running.url, '/mcp', { host: `localhost:${hostPort}`, origin: `http://localhost:${hostPort}` }, initialize);
    expect(mcp.status).toBe(200);
  });

  it('lets probes answer any Host (kubelets address pods by IP), but not a foreign Origin', async () => {
    for (const path of ['/health', '/started', '/ready', '/info']) {
      expect((await raw(running.url, path, { host: `10.1.2.3:${hostPort}` })).status, path).not.toBe(403);
    }
    expect((await raw(running.url, '/openapi.json', { host: `10.1.2.3:${hostPort}` })).status).toBe(403);
  });
});

describe('the admin API without a token', () => {
  it('is closed with a 403 that says to set ADMIN_TOKEN', async () => {
    const running = await startServer();
    try {
      const refused = await raw(running.url, '/admin/api/workspaces/someone/files', {});
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden' });
      expect(messageOf(refused.body)).toContain('ADMIN_TOKEN');
      // The agent's API stays open on loopback without a token.
      expect((await raw(running.url, '/workspace', {})).status).toBe(200);
    } finally {
      await running.close();
    }
  });
});
