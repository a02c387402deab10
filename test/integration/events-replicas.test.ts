import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_HISTORY, type AuditEvent } from '../../src/events/events.js';
import { RedisEventBus } from '../../src/redis/events.js';
import { EVENTS_KEY } from '../../src/redis/keys.js';
import * as schema from '../../src/http/admin/schemas.js';
import { RedisConnection } from '../../src/redis/connection.js';
import { adminClient } from '../helpers/admin.js';
import { readEvents } from '../helpers/events.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { spawnReplica, type Replica } from '../helpers/replica.js';

// Two `selenium-flow serve` processes sharing one real Redis, on the shared Grid; one browser at a time.

const TOKEN = 'events-replicas-bearer';
const ADMIN = 'events-replicas-admin';
const W = 'ev-replicas';
const site = inject('siteUrl');

let redis: RunningRedis;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  redis = await startRedis();
  const env = { GRID_URL: inject('gridUrl'), REDIS_URL: redis.url, MCP_AUTH_TOKEN: TOKEN, ADMIN_TOKEN: ADMIN };
  [a, b] = await Promise.all([spawnReplica(env), spawnReplica(env)]);
});

afterAll(async () => {
  await adminClient(a.url, ADMIN, TOKEN)
    .agent(W, '/browser/end-browser')
    .catch(() => undefined);
  await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
  await redis?.stop();
});

describe('the audit events across replicas', () => {
  it("shows an event of replica A in replica B's stream and history, and A's own stream too", async () => {
    const onB = await readEvents(b.url, ADMIN);
    const onA = await readEvents(a.url, ADMIN);
    try {
      const opened = await adminClient(a.url, ADMIN, TOKEN).agent(W, '/browser/navigate', {
        url: `${site}/login.html`,
      });
      expect(opened.status).toBe(200);
      const isOpened = (e: AuditEvent) => e.type === 'browser_opened' && e.workspace === W;
      const seenOnB = await onB.next(isOpened);
      const seenOnA = await onA.next(isOpened);
      expect(seenOnB).toEqual(seenOnA);
      // Ended through B: A's stream hears it, and the two replicas are told apart by name.
      await adminClient(b.url, ADMIN, TOKEN).agent(W, '/browser/end-browser');
      const ended = await onA.next((e) => e.type === 'browser_ended' && e.workspace === W);
      expect(ended.replica).not.toBe(seenOnA.replica);
      const history = await adminClient(b.url, ADMIN, TOKEN).admin('GET', '/admin/api/events', {
        shape: schema.eventHistory,
      });
      expect(history.body.events.slice(0, 2).map((e) => e.id)).toEqual([ended.id, seenOnA.id]);
      // A stream opened on B resumes after an event A emitted.
      const resumed = await readEvents(b.url, ADMIN, { lastEventId: seenOnA.id });
      try {
        expect((await resumed.next(() => true)).id).toBe(ended.id);
      } finally {
        resumed.close();
      }
    } finally {
      onA.close();
      onB.close();
    }
  });

  it(`keeps at most ${MAX_HISTORY} in Redis, newest first`, async () => {
    const connection = await RedisConnection.open(redis.url);
    const bus = await RedisEventBus.open(connection);
    try {
      const base = { at: new Date().toISOString(), replica: 'test', workspace: 'cap', by: 'caller' } as const;
      for (let i = 0; i < MAX_HISTORY + 5; i++) {
        await bus.publish({ ...base, type: 'browser_ended', id: `cap-${i}` });
      }
      expect(await connection.client.llen(EVENTS_KEY)).toBe(MAX_HISTORY);
      const kept = await bus.recent(MAX_HISTORY * 2);
      expect(kept).toHaveLength(MAX_HISTORY);
      expect(kept[0]?.id).toBe(`cap-${MAX_HISTORY + 4}`);
      expect(kept.at(-1)?.id).toBe('cap-5');
    } finally {
      await bus.close();
      await connection.close();
    }
  });
});
