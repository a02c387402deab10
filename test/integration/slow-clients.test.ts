import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HEADERS_TIMEOUT_MS } from '../../src/http/app.js';
import { callHeldOpen } from '../helpers/running-call.js';
import { rest, startServer, type RunningServer } from '../helpers/server.js';

const agent = { 'x-workspace': 'slow-clients' };
let running: RunningServer;

beforeAll(async () => {
  running = await startServer();
}, 60_000);

afterAll(async () => {
  await rest(running.url, '/browser/end-browser', {}, agent).catch(() => undefined);
  await running.close();
});

/** A raw connection that sends `bytes` and no more: what the server sent, and when it closed. */
function halfRequest(bytes: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => {
      if (bytes !== '') {
        socket.write(bytes);
      }
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
  });
}

// Node looks at its connections once a second: the close comes within the timeout and a check.
const BOUND_MS = HEADERS_TIMEOUT_MS + 2_500;

describe('clients that never finish their request', () => {
  it('closes half a request line, and half the headers, within seconds, while whole requests answer', async () => {
    const line = halfRequest('GET /hea');
    const headers = halfRequest('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const silent = halfRequest('');
    // A whole request meanwhile is answered at once.
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
    for (const [what, half] of [
      ['request line', line],
      ['headers', headers],
      ['nothing sent', silent],
    ] as const) {
      const { answer, closedAfterMs } = await half;
      expect(closedAfterMs, what).toBeLessThan(BOUND_MS);
      expect(closedAfterMs, what).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      if (answer !== '') {
        expect(answer, what).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), what).toEqual({
          error: {
            code: 'request_timeout',
            message: `The request did not arrive in time (its headers within ${HEADERS_TIMEOUT_MS / 1000} s); send the whole request at once.`,
          },
        });
      }
    }
    expect((await line).answer).not.toBe('');
  }, 30_000);

  it('leaves a request that arrived whole to take its time answering', async () => {
    const page = await rest(running.url, '/browser/navigate', { url: `${inject('siteUrl')}/welcome.html` }, agent);
    expect(page.status).toBe(200);
    const held = await callHeldOpen(running.url, agent, HEADERS_TIMEOUT_MS + 2_000);
    try {
      const { status, body } = await held.answer;
      expect(status).toBe(200);
      expect(body.result).toBe(7);
    } finally {
      await held.close();
    }
  }, 60_000);
});
