import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisMcpSessions } from '../../src/redis/mcp-sessions.js';
import {
  MemoryMcpSessions,
  mcpSessionDigest,
  newMcpSessionId,
  type McpSessionStore,
} from '../../src/workspace/mcp-sessions.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

let redis: RunningRedis;
let connection: RedisConnection;
beforeAll(async () => {
  redis = await startRedis();
  connection = await RedisConnection.open(redis.url);
});
afterAll(async () => {
  await connection.close();
  await redis.stop();
});

const TTL_SECONDS = 60;
const PER_OWNER = 3;

/** Each store, with a clock the test moves. */
const stores: [string, (now: () => number) => McpSessionStore][] = [
  ['memory', (now) => new MemoryMcpSessions(TTL_SECONDS * 1000, PER_OWNER, now)],
  ['Redis', (now) => new RedisMcpSessions(connection, TTL_SECONDS, PER_OWNER, now)],
];

describe.each(stores)('MCP sessions in %s', (name, make) => {
  it('answers a session to the token that opened it only, until it ends', async () => {
    const store = make(Date.now);
    const id = newMcpSessionId();
    await store.open(id, { owner: 'alice', extensions: ['io.modelcontextprotocol/ui'] });
    expect(await store.use(id, 'alice')).toEqual({ owner: 'alice', extensions: ['io.modelcontextprotocol/ui'] });
    expect(await store.use(id, 'bob')).toBeUndefined();
    expect(await store.end(id, 'bob')).toBe(false);
    expect(await store.use(newMcpSessionId(), 'alice')).toBeUndefined();
    expect(await store.end(id, 'alice')).toBe(true);
    expect(await store.use(id, 'alice')).toBeUndefined();
  });

  it('keeps at most its bound per token, ending the least recently used first', async () => {
    // A clock that moves between calls: "least recently" needs two uses a millisecond apart.
    let now = Date.now();
    const store = make(() => (now += 1));
    const owner = `bounded-${newMcpSessionId()}`;
    const ids = [newMcpSessionId(), newMcpSessionId(), newMcpSessionId()];
    for (const id of ids) {
      await store.open(id, { owner, extensions: [] });
    }
    // The first is used again: the second is now the least recently used.
    expect(await store.use(ids[0] ?? '', owner)).toBeDefined();
    const fourth = newMcpSessionId();
    await store.open(fourth, { owner, extensions: [] });
    expect(await store.use(ids[1] ?? '', owner)).toBeUndefined();
    for (const id of [ids[0], ids[2], fourth]) {
      expect(await store.use(id ?? '', owner)).toBeDefined();
    }
    // Another token's sessions are not counted against this one.
    await store.open(newMcpSessionId(), { owner: `${owner}-other`, extensions: [] });
    expect(await store.use(fourth, owner)).toBeDefined();
  });

  it('forgets a session left unused for SESSION_TTL, and every use restarts its time', async () => {
    let now = Date.now();
    const store = make(() => now);
    const id = newMcpSessionId();
    await store.open(id, { owner: 'carol', extensions: [] });
    now += (TTL_SECONDS - 1) * 1000;
    expect(await store.use(id, 'carol')).toBeDefined();
    now += (TTL_SECONDS - 1) * 1000;
    expect(await store.use(id, 'carol')).toBeDefined();
    // Redis expires by its own clock; its expiry is read in the test below.
    if (name === 'memory') {
      now += TTL_SECONDS * 1000 + 1;
      expect(await store.use(id, 'carol')).toBeUndefined();
    }
  });
});

describe('the MCP sessions in Redis', () => {
  it('keep the id’s digest only, expiring with SESSION_TTL', async () => {
    const store = new RedisMcpSessions(connection, TTL_SECONDS, PER_OWNER);
    const id = newMcpSessionId();
    await store.open(id, { owner: 'dave', extensions: [] });
    const keys = await connection.call((c) => c.keys('*'));
    expect(keys.join(' ')).not.toContain(id);
    expect(keys.join(' ')).toContain(mcpSessionDigest(id));
    const ttl = await connection.call((c) => c.pttl(keys.find((k) => k.includes(mcpSessionDigest(id))) ?? ''));
    expect(ttl).toBeGreaterThan((TTL_SECONDS - 5) * 1000);
    expect(ttl).toBeLessThanOrEqual(TTL_SECONDS * 1000);
  });
});
