import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_STREAMS, type AuditEvent } from '../../src/events/events.js';
import * as schema from '../../src/http/admin/schemas.js';
import { adminClient, messageOf, type AdminClient } from '../helpers/admin.js';
import { readEvents, type EventReader } from '../helpers/events.js';
import { secretsDir } from '../helpers/secrets.js';
import { gridIdOf, startServer, type RunningServer } from '../helpers/server.js';

const site = inject('siteUrl');
const origin = new URL(site).origin;
const TOKEN = 'events-bearer-token';
const ADMIN = 'events-admin-token';
/** Planted in the catalogue: no event may ever carry it. */
const PLANTED = 'PLANTED-events-pw-71c3d9';
/** One workspace, so one Grid slot, for every browser here. */
const W = 'ev';

let dataDir: string;
let secrets: string;
let server: RunningServer;
let client: AdminClient;
let stream: EventReader;
const gridIds: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-events-'));
  secrets = await secretsDir({
    'site-login': { password: PLANTED, _allowed_urls: `${origin}\n` },
    elsewhere: { password: 'PLANTED-elsewhere-pw', _allowed_urls: 'https://example.com\n' },
  });
  server = await startServer({
    FLOW_DATA_DIR: dataDir,
    MCP_AUTH_TOKEN: TOKEN,
    ADMIN_TOKEN: ADMIN,
    SECRETS_DIRS: secrets,
    SECRETS_KUBERNETES: 'off',
  });
  client = adminClient(server.url, ADMIN, TOKEN);
  stream = await readEvents(server.url, ADMIN);
});

afterAll(async () => {
  stream?.close();
  await client?.agent(W, '/browser/end-browser').catch(() => undefined);
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(secrets, { recursive: true, force: true });
});

const inW =
  <T extends AuditEvent['type']>(type: T) =>
  (e: AuditEvent): e is Extract<AuditEvent, { type: T }> =>
    e.type === type && e.workspace === W;
const ok = async (path: string, body: unknown = {}, method = 'POST') => {
  const answer = await client.agent(W, path, body, method);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};
const putFlow = (name: string, steps: unknown[]) => ok(`/flows/${name}`, { steps }, 'PUT');
const writeSecret = (name: string) =>
  client.agent(W, '/browser/write', { selector: { css: '#password' }, secret: { name, key: 'password' } });

describe('every audit event comes from the action itself', () => {
  it('a browser opened by a call, as it opens', async () => {
    await ok('/browser/navigate', { url: `${site}/login.html` });
    gridIds.push((await gridIdOf(server, W)) ?? '');
    expect(await stream.next(inW('browser_opened'))).toMatchObject({ workspace: W, browser: 'chrome' });
  });

  it('a secret typed on a page it may be used on, and one refused on a page it may not', async () => {
    expect((await writeSecret('site-login')).status).toBe(200);
    expect(await stream.next((e) => inW('secret_bind')(e) && e.allowed)).toMatchObject({
      secret: 'site-login',
      key: 'password',
      origin,
      allowed: true,
      flow: null,
      step: null,
    });
    const refused = await writeSecret('elsewhere');
    expect(refused.status).toBe(403);
    expect(await stream.next((e) => inW('secret_bind')(e) && !e.allowed)).toMatchObject({
      secret: 'elsewhere',
      key: 'password',
      origin,
      allowed: false,
      reason: 'origin not allowed',
    });
  });

  it('a flow that runs through, and one that fails, with how far each got', async () => {
    await putFlow('login', [
      { tool: 'navigate', args: { url: `${site}/login.html` } },
      {
        id: 'pw',
        tool: 'write',
        args: { selector: { css: '#password' }, secret: { name: 'site-login', key: 'password' } },
      },
    ]);
    expect(await ok('/flows/login/run')).toMatchObject({ status: 'ok' });
    expect(await stream.next((e) => inW('flow_run')(e) && e.status === 'ok')).toMatchObject({
      flow: 'login',
      steps_run: 2,
      steps_total: 2,
    });
    // A bind inside a flow names the flow and the step.
    expect(stream.events.find((e) => e.type === 'secret_bind' && e.flow === 'login')).toMatchObject({
      step: 'pw',
      allowed: true,
    });
    await putFlow('broken', [
      { tool: 'navigate', args: { url: `${site}/table.html` } },
      { tool: 'interact', args: { action: 'click', selector: { css: '#no-such-button' }, wait_timeout: 0 } },
      { tool: 'navigate', args: { url: `${site}/login.html` } },
    ]);
    expect(await ok('/flows/broken/run')).toMatchObject({ status: 'failed' });
    expect(await stream.next((e) => inW('flow_run')(e) && e.status === 'failed')).toMatchObject({
      flow: 'broken',
      steps_run: 2,
      steps_total: 3,
    });
  });

  it('a browser ended by its caller, and one ended by an operator (End browser)', async () => {
    await ok('/browser/end-browser');
    expect(await stream.next((e) => inW('browser_ended')(e) && e.by === 'caller')).toMatchObject({ workspace: W });
    await ok('/browser/navigate', { url: `${site}/table.html` });
    gridIds.push((await gridIdOf(server, W)) ?? '');
    const ended = await client.admin('DELETE', `/admin/api/workspaces/${W}/browser`, { shape: schema.browserEnded });
    expect(ended.body.ended).toBe(true);
    expect(await stream.next((e) => inW('browser_ended')(e) && e.by === 'operator')).toMatchObject({ workspace: W });
  });

  it('keeps them newest first, and none carries a value, a full URL, a title or a Grid id', async () => {
    const { body, text } = await client.admin('GET', '/admin/api/events', { shape: schema.eventHistory });
    expect(body.events.map((e) => e.id)).toEqual(stream.events.map((e) => e.id).reverse());
    expect(body.events.map((e) => e.type)).toEqual([
      'browser_ended',
      'browser_opened',
      'browser_ended',
      'flow_run',
      'flow_run',
      'secret_bind',
      'secret_bind',
      'secret_bind',
      'browser_opened',
    ]);
    const streamed = JSON.stringify(stream.events);
    for (const banned of [
      PLANTED,
      'PLANTED-elsewhere',
      '/login.html',
      '/table.html',
      'Login',
      'Data table',
      ...gridIds,
    ]) {
      expect(text, banned).not.toContain(banned);
      expect(streamed, banned).not.toContain(banned);
    }
    expect(gridIds.every((id) => id.length > 0)).toBe(true);
    const limited = await client.admin('GET', '/admin/api/events?limit=2', { shape: schema.eventHistory });
    expect(limited.body.events).toEqual(body.events.slice(0, 2));
  });
});

describe('the stream', () => {
  it('resumes after Last-Event-ID with what came after it, and replays the newest with ?limit', async () => {
    const kept = [...stream.events];
    const resumed = await readEvents(server.url, ADMIN, { lastEventId: kept[5]?.id });
    const replay = await readEvents(server.url, ADMIN, { limit: 2 });
    try {
      const last = kept.at(-1)?.id;
      await resumed.next((e) => e.id === last);
      expect(resumed.events.map((e) => e.id)).toEqual(kept.slice(6).map((e) => e.id));
      await replay.next((e) => e.id === last);
      expect(replay.events.map((e) => e.id)).toEqual(kept.slice(-2).map((e) => e.id));
      // and then live, on all three
      await ok('/browser/navigate', { url: `${site}/table.html` });
      for (const reader of [resumed, replay, stream]) {
        await reader.next((e) => inW('browser_opened')(e) && !kept.includes(e));
      }
      expect(resumed.comments.join('\n')).toContain('then live');
    } finally {
      resumed.close();
      replay.close();
      await ok('/browser/end-browser');
    }
  });

  it('answers 401 without the admin token, and 400 to a limit or an id it cannot use', async () => {
    for (const path of ['/admin/api/events', '/admin/api/events/stream']) {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
        const answer = await fetch(server.url + path, { headers });
        expect(answer.status, path).toBe(401);
        expect(messageOf(await answer.json())).toContain('ADMIN_TOKEN');
      }
    }
    const badLimit = await client.admin('GET', '/admin/api/events?limit=5000');
    expect(badLimit.status).toBe(400);
    expect(messageOf(badLimit.body)).toContain('?limit as a whole number from 1 to 500');
    for (const since of ['abc', '5']) {
      for (const path of ['/admin/api/events', '/admin/api/events/stream']) {
        const unread = await client.admin('GET', `${path}?since=${since}`);
        expect(unread.status, path).toBe(400);
        expect(messageOf(unread.body)).toMatch(
          new RegExp(
            `^Unknown query parameter "since" for GET ${path}; it takes only limit \\(optional: at most this many`,
          ),
        );
      }
    }
    const badId = await client.admin('GET', '/admin/api/events/stream', {
      headers: { 'last-event-id': 'x'.repeat(80) },
    });
    expect(badId.status).toBe(400);
    expect(messageOf(badId.body)).toContain('Last-Event-ID');
  });

  it(`holds at most ${MAX_STREAMS} streams, refusing one more with a 429 that says so`, async () => {
    const others = await Promise.all(
      Array.from({ length: MAX_STREAMS - 1 }, () => readEvents(server.url, ADMIN, { limit: 1 })),
    );
    try {
      expect(others.every((r) => r.status === 200)).toBe(true);
      const refused = await client.admin('GET', '/admin/api/events/stream');
      expect(refused.status).toBe(429);
      expect(messageOf(refused.body)).toMatch(
        /already serves 32 event streams \(MAX_STREAMS\).*GET \/admin\/api\/events/,
      );
      // A place given back is a place for the next one.
      others.pop()?.close();
      const statusOfOneMore = async () => {
        const reader = await readEvents(server.url, ADMIN, { limit: 1 });
        reader.close();
        return reader.status;
      };
      // The server hears the close a moment after the client makes it.
      await expect.poll(statusOfOneMore).toBe(200);
    } finally {
      for (const reader of others) {
        reader.close();
      }
    }
  });

  it('sends a keep-alive comment every EVENTS_HEARTBEAT seconds while nothing happens', async () => {
    const quiet = await startServer({ ADMIN_TOKEN: ADMIN, MCP_AUTH_TOKEN: TOKEN, EVENTS_HEARTBEAT: '1' });
    const reader = await readEvents(quiet.url, ADMIN);
    try {
      expect(reader.status).toBe(200);
      await expect
        .poll(() => reader.comments.filter((c) => c === 'keep-alive').length, { timeout: 5_000 })
        .toBeGreaterThanOrEqual(2);
      expect(reader.events).toEqual([]);
    } finally {
      reader.close();
      await quiet.close();
    }
  });

  it('ends when the server shuts down, so the close is not held by it', async () => {
    const own = await startServer({ ADMIN_TOKEN: ADMIN });
    const reader = await readEvents(own.url, ADMIN);
    expect(reader.status).toBe(200);
    const started = Date.now();
    await own.close();
    await reader.ended;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
