import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StoreUnavailable, TimedOut } from '../../src/errors.js';
import { freePort } from '../../src/embedded-grid/index.js';
import { connectBackends } from '../../src/backends.js';
import { openServer } from '../../src/server.js';
import { newRecord } from '../../src/workspace/records.js';
import { MemoryNetworkLog } from '../../src/live/monitor/network-log.js';
import { RedisConnection } from '../../src/redis/connection.js';
import { RedisNetworkLog } from '../../src/redis/network-log.js';
import { RECORD_PREFIX } from '../../src/redis/keys.js';
import { RedisRecordStore } from '../../src/redis/record-store.js';
import { RedisTurns } from '../../src/redis/turns.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

let redis: RunningRedis;
const connections: RedisConnection[] = [];

async function connection(): Promise<RedisConnection> {
  const opened = await RedisConnection.open(redis.url);
  connections.push(opened);
  return opened;
}

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await redis.stop();
});

/** Resolves when fn() is true, polling; fails the test after timeoutMs. */
async function until(fn: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) {
      throw new Error('condition not reached in time');
    }
    await delay(10);
  }
}

describe('configuration of the store', () => {
  it('uses Redis when REDIS_URL is set, memory otherwise, and memory when asked', () => {
    expect(loadConfig({}, {}).sessionStore).toBe('memory');
    expect(loadConfig({}, { REDIS_URL: 'redis://127.0.0.1:6379' }).sessionStore).toBe('redis');
    expect(loadConfig({ 'redis-url': 'redis://127.0.0.1:6379' }, {}).sessionStore).toBe('redis');
    expect(loadConfig({}, { REDIS_URL: 'redis://127.0.0.1:6379', SESSION_STORE: 'memory' }).sessionStore).toBe(
      'memory',
    );
  });

  it('refuses an unknown SESSION_STORE, redis without a URL, and a URL that is not redis://, naming the setting', () => {
    expect(() => loadConfig({}, { SESSION_STORE: 'postgres' })).toThrow(/^SESSION_STORE must be "memory" or "redis"/);
    expect(() => loadConfig({}, { SESSION_STORE: 'redis' })).toThrow(
      /^SESSION_STORE is "redis" but REDIS_URL \(--redis-url\) is not set/,
    );
    expect(() => loadConfig({}, { REDIS_URL: 'http://:s3cret@127.0.0.1:6379' })).toThrow(
      /^REDIS_URL \(--redis-url\) must be a redis:\/\//,
    );
    expect(() => loadConfig({}, { REDIS_URL: 'http://:s3cret@127.0.0.1:6379' })).not.toThrow(/s3cret/);
  });
});

describe('a configured Redis at boot', () => {
  it('stops the boot when it cannot be reached, naming host:port and never the password', async () => {
    const port = await freePort();
    const config = loadConfig({}, { REDIS_URL: `redis://:s3cret-pass@127.0.0.1:${port}/2`, LOG_LEVEL: 'silent' });
    const boot = openServer(config, 'http://127.0.0.1:9');
    await expect(boot).rejects.toThrow(StoreUnavailable);
    const message = await boot.catch((err: unknown) => (err as Error).message);
    expect(message).toContain(`127.0.0.1:${port}/2`);
    expect(message).toContain('ECONNREFUSED');
    expect(message).toMatch(/refusing to start on in-memory workspaces/);
    expect(message).not.toContain('s3cret');
  });

  it('stops the boot on a wrong password without quoting either password', async () => {
    const guarded = await startRedis({ password: 'right-s3cret' });
    try {
      const config = loadConfig(
        {},
        { REDIS_URL: `redis://:wrong-s3cret@127.0.0.1:${guarded.port}`, LOG_LEVEL: 'silent' },
      );
      const message = await connectBackends(config).then(
        () => 'connected',
        (err: unknown) => (err as Error).message,
      );
      expect(message).toContain(`127.0.0.1:${guarded.port}`);
      expect(message).toMatch(/WRONGPASS|NOAUTH|invalid/i);
      expect(message).not.toContain('s3cret');
    } finally {
      await guarded.stop();
    }
  });

  it('stops the boot when the ioredis package is missing, with the remedy', async () => {
    const config = loadConfig({}, { REDIS_URL: redis.url });
    const missing = Object.assign(
      new Error("Cannot find package 'ioredis' imported from /app/dist/redis/connection.js"),
      {
        code: 'ERR_MODULE_NOT_FOUND',
      },
    );
    await expect(connectBackends(config, () => Promise.reject(missing))).rejects.toThrow(
      /ioredis package is missing; run `npm install`/,
    );
  });

  it('serves /ready with the store when Redis answers, and 503 with store false when it does not', async () => {
    const own = await startRedis();
    const server = await openServer(loadConfig({}, { REDIS_URL: own.url, LOG_LEVEL: 'silent' }), 'http://127.0.0.1:9');
    try {
      const up = await server.app.inject({ method: 'GET', url: '/ready' });
      expect(up.json()).toMatchObject({ store: true });
      await own.stop();
      const down = await server.app.inject({ method: 'GET', url: '/ready' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ status: 'unavailable', store: false });
    } finally {
      await server.close();
      await own.stop();
    }
  });
});

describe('RedisRecordStore', () => {
  it('keeps whole records as JSON under the prefix, and lists keys by SCAN', async () => {
    const conn = await connection();
    const store = new RedisRecordStore(conn, 60, `${RECORD_PREFIX}scan-test:`);
    const record = {
      ...newRecord(),
      gridId: 'g-1',
      url: 'http://127.0.0.1/a',
      capabilities: { browserName: 'chrome' },
    };
    await store.put('named:a', record);
    expect(await store.get('named:a')).toEqual(record);
    expect(JSON.parse((await conn.client.get(`${RECORD_PREFIX}scan-test:named:a`)) ?? '')).toEqual(record);
    // More keys than one SCAN batch, and a key of someone else's that must not be listed.
    await Promise.all(Array.from({ length: 450 }, (_, i) => store.put(`named:k${i}`, newRecord())));
    await conn.client.set('other-app:named:x', '{}');
    const keys = await store.keys();
    expect(keys).toHaveLength(451);
    expect(keys).toContain('named:a');
    expect(keys).toContain('named:k449');
    await store.delete('named:a');
    expect(await store.get('named:a')).toBeUndefined();
    expect(await store.keys()).toHaveLength(450);
  });

  it('reads many records in order in a few MGETs, not one GET per record', async () => {
    const conn = await connection();
    const store = new RedisRecordStore(conn, 60, `${RECORD_PREFIX}many-test:`);
    const keys = Array.from({ length: 450 }, (_, i) => `named:m${i}`);
    await Promise.all(keys.map((key, i) => store.put(key, { ...newRecord(), url: `http://127.0.0.1/${i}` })));
    const calls = async (command: string) =>
      Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await conn.client.info('commandstats'))?.[1] ?? 0);
    const [mgetBefore, getBefore] = [await calls('mget'), await calls('get')];
    const found = await store.getMany([...keys, 'named:missing']);
    expect(found).toHaveLength(451);
    expect(found.slice(0, 450).map((r) => r?.url)).toEqual(keys.map((_, i) => `http://127.0.0.1/${i}`));
    expect(found[450]).toBeUndefined();
    expect(await calls('mget')).toBe(mgetBefore + 3);
    expect(await calls('get')).toBe(getBefore);
  });

  it("counts an owner's open browsers from its own set, in one script, whatever else is remembered", async () => {
    const conn = await connection();
    const [records, owners] = [`${RECORD_PREFIX}held-test:`, 'selenium-flow:owner-test:'];
    const store = new RedisRecordStore(conn, 60, records, owners);
    const held = (key: string, owner: string) => store.put(key, { ...newRecord(), gridId: `g-${key}`, owner });
    await Promise.all(Array.from({ length: 300 }, (_, i) => held(`named:other-${i}`, `agent-${i % 7}`)));
    await Promise.all([
      held('named:a', 'alice'),
      held('named:b', 'alice'),
      held('named:c', 'alice'),
      held('named:d', 'alice'),
    ]);
    await store.put('named:b', { ...newRecord(), owner: 'alice' }); // its browser ended
    await store.delete('named:c');
    await held('named:d', 'bob'); // opened again by another caller
    const calls = async (command: string) =>
      Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await conn.client.info('commandstats'))?.[1] ?? 0);
    const [scanBefore, mgetBefore, getBefore] = [await calls('scan'), await calls('mget'), await calls('get')];
    expect((await store.heldBy('alice')).map(([key, record]) => [key, record.gridId])).toEqual([
      ['named:a', 'g-named:a'],
    ]);
    expect([await calls('scan'), await calls('mget')]).toEqual([scanBefore, mgetBefore]);
    expect(await calls('get')).toBe(getBefore + 4); // alice's four keys, each read once inside the script
    expect((await conn.client.smembers(`${owners}alice`)).sort()).toEqual(['named:a']);
    expect(await conn.client.pttl(`${owners}alice`)).toBeGreaterThan(50_000);
    expect((await store.heldBy('bob')).map(([key]) => key)).toEqual(['named:d']);
  });

  it('slides the TTL on every write, and forgets a record left unused', async () => {
    const ttlMs = 800;
    const conn = await connection();
    const store = new RedisRecordStore(conn, ttlMs / 1000, `${RECORD_PREFIX}ttl-test:`);
    const key = `${RECORD_PREFIX}ttl-test:named:t`;
    await store.put('named:t', newRecord());
    const firstSet = Date.now();
    expect(await conn.client.pttl(key)).toBeGreaterThan(600);
    await until(async () => (await conn.client.pttl(key)) < 400);
    const secondSent = Date.now();
    await store.put('named:t', newRecord());
    expect(await conn.client.pttl(key)).toBeGreaterThan(600);
    // Midway between the first write's expiry and the second's: alive only because the second slid it.
    await delay(Math.max(0, (firstSet + secondSent) / 2 + ttlMs - Date.now()));
    expect(await store.get('named:t')).toBeDefined();
    await until(async () => (await store.get('named:t')) === undefined, ttlMs);
  });

  it('answers StoreUnavailable with the reason while Redis is away, fast, and works again when it returns', async () => {
    const own = await startRedis();
    const conn = await RedisConnection.open(own.url);
    const store = new RedisRecordStore(conn, 60);
    try {
      await store.put('named:r', newRecord());
      await own.stop();
      const started = Date.now();
      const failure = await store.get('named:r').catch((err: unknown) => err);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(failure).toBeInstanceOf(StoreUnavailable);
      expect((failure as StoreUnavailable).status).toBe(503);
      expect((failure as Error).message).toMatch(
        new RegExp(
          `Redis at 127\\.0\\.0\\.1:${own.port}\\) is unavailable \\((Redis closed the connection|.*ECONNREFUSED)`,
        ),
      );
      await own.start();
      await until(() =>
        store.ping().then(
          () => true,
          () => false,
        ),
      );
      expect(await store.get('named:r')).toBeUndefined(); // a Redis without persistence comes back empty
      await store.put('named:r', newRecord());
      expect(await store.get('named:r')).toBeDefined();
    } finally {
      await store.close();
      await own.stop();
    }
  });

  it('fails a command in bounded time when Redis hangs, instead of hanging the call', async () => {
    const own = await startRedis();
    const conn = await RedisConnection.open(own.url, { commandTimeoutMs: 300 });
    const store = new RedisRecordStore(conn, 60);
    try {
      own.pause();
      const started = Date.now();
      await expect(store.get('named:h')).rejects.toThrow(/unavailable \(.*timed out/i);
      expect(Date.now() - started).toBeLessThan(1_500);
      own.resume();
      await until(() =>
        store.ping().then(
          () => true,
          () => false,
        ),
      );
    } finally {
      own.resume();
      await store.close();
      await own.stop();
    }
  });
});

describe('RedisTurns across replicas', () => {
  const lineLength = (conn: RedisConnection, key: string) => conn.client.llen(`selenium-flow:turn:${key}:queue`);

  it('serves calls on one browser first come first served across two replicas, one at a time', async () => {
    const [connA, connB] = [await connection(), await connection()];
    const [a, b] = [new RedisTurns(connA), new RedisTurns(connB)];
    const key = 'workspace:named:fifo';
    const log: string[] = [];
    let running = 0;
    let overlapped = false;
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const call = (turns: RedisTurns, name: string, wait?: Promise<void>) =>
      turns.run(key, async () => {
        running += 1;
        overlapped ||= running > 1;
        log.push(name);
        await (wait ?? delay(20));
        running -= 1;
      });
    const calls = [call(a, 'A1', gate)];
    await until(async () => log.length === 1);
    // Each joins only once the one before it is in line, so the arrival order is known.
    for (const [turns, name] of [
      [b, 'B1'],
      [a, 'A2'],
      [b, 'B2'],
      [a, 'A3'],
    ] as const) {
      const before = await lineLength(connA, key);
      calls.push(call(turns, name));
      await until(async () => (await lineLength(connA, key)) === before + 1);
    }
    openGate();
    await Promise.all(calls);
    expect(log).toEqual(['A1', 'B1', 'A2', 'B2', 'A3']);
    expect(overlapped).toBe(false);
    expect(await connA.client.exists(`selenium-flow:turn:${key}:queue`, `selenium-flow:turn:${key}:holder`)).toBe(0);
  });

  it('keeps a long call its turn by renewing the lease', async () => {
    const [connA, connB] = [await connection(), await connection()];
    const leaseMs = 200;
    // Held past four leases: only renewing keeps the other replica from taking the turn meanwhile.
    const heldMs = 4 * leaseMs + 100;
    const [a, b] = [new RedisTurns(connA, { leaseMs }), new RedisTurns(connB, { leaseMs })];
    const key = 'workspace:named:long';
    const log: string[] = [];
    const long = a.run(key, async () => {
      log.push('long starts');
      await delay(heldMs);
      log.push('long ends');
    });
    await until(async () => log.length === 1);
    await b.run(key, async () => {
      log.push('next');
    });
    await long;
    expect(log).toEqual(['long starts', 'long ends', 'next']);
  });

  it('lets the next call go once a crashed holder’s lease runs out', async () => {
    const [connA, connB] = [await connection(), await connection()];
    const [a, b] = [new RedisTurns(connA, { leaseMs: 600 }), new RedisTurns(connB, { leaseMs: 600 })];
    const key = 'workspace:named:crash';
    let held = false;
    void a
      .run(key, async () => {
        held = true;
        await new Promise(() => undefined); // never finishes: the replica dies holding the turn
      })
      .catch(() => undefined);
    await until(async () => held);
    connA.client.disconnect(); // the replica is gone: nothing renews its lease any more
    const started = Date.now();
    const ran = await b.run(key, async () => Date.now());
    expect(ran - started).toBeGreaterThan(200);
    expect(ran - started).toBeLessThan(1_500);
  });

  it('skips a waiter that died in line', async () => {
    const [connA, connB, connC] = [await connection(), await connection(), await connection()];
    const options = { leaseMs: 400 };
    const [a, b, c] = [new RedisTurns(connA, options), new RedisTurns(connB, options), new RedisTurns(connC, options)];
    const key = 'workspace:named:dead-waiter';
    let release: () => void = () => undefined;
    const holding = a.run(key, () => new Promise<void>((resolve) => (release = resolve)));
    await until(async () => (await connA.client.exists(`selenium-flow:turn:${key}:holder`)) === 1);
    const dead = c.run(key, async () => 'dead ran').catch((err: unknown) => err);
    await until(async () => (await lineLength(connA, key)) === 1);
    connC.client.disconnect(); // dies while waiting: its token stays in line, its heartbeat stops
    expect(await dead).toBeInstanceOf(StoreUnavailable);
    const next = b.run(key, async () => 'next ran');
    await until(async () => (await lineLength(connA, key)) === 2);
    release();
    await holding;
    expect(await next).toBe('next ran');
  });

  it('answers 504 with a remedy after the bounded wait, and leaves the line', async () => {
    const [connA, connB] = [await connection(), await connection()];
    const a = new RedisTurns(connA);
    const b = new RedisTurns(connB, { waitMs: 300 });
    const key = 'workspace:named:bounded';
    let release: () => void = () => undefined;
    const holding = a.run(key, () => new Promise<void>((resolve) => (release = resolve)));
    await until(async () => (await connA.client.exists(`selenium-flow:turn:${key}:holder`)) === 1);
    const waited = await b.run(key, async () => 'ran').catch((err: unknown) => err);
    expect(waited).toBeInstanceOf(TimedOut);
    expect((waited as TimedOut).status).toBe(504);
    expect((waited as Error).message).toMatch(/turn .* call again when they are done/);
    expect(await lineLength(connA, key)).toBe(0);
    release();
    await holding;
  });

  it('never ends a turn that is no longer its own', async () => {
    const conn = await connection();
    const turns = new RedisTurns(conn);
    const holder = 'selenium-flow:turn:workspace:named:own:holder';
    await turns.run('workspace:named:own', async () => {
      // As if our lease had run out and another replica had taken the turn meanwhile.
      await conn.client.set(holder, 'someone-else', 'PX', 5_000);
    });
    expect(await conn.client.get(holder)).toBe('someone-else');
  });
});

describe('a network log, in memory and in Redis', () => {
  const entry = {
    id: 'r1',
    method: 'GET',
    url: 'https://example.test/',
    status: 200,
    type: 'document',
    mime_type: 'text/html',
    duration_ms: 3,
    size: 10,
    body: true,
  };

  it('keeps why capture stopped beside what it recorded, until capture begins again', async () => {
    for (const log of [new MemoryNetworkLog(10, 60), new RedisNetworkLog(await connection(), 10, 60)]) {
      const key = `named:stopped-${log.constructor.name}`;
      await log.begin(key, { id: 'c1', gridId: 'g', since: '2026-12-07T00:00:00Z' });
      expect(await log.append(key, 'c1', entry)).toBe(true);
      await log.end(key, 'Capture stopped at 02:14 UTC: the browser it captured ended.');
      expect(await log.state(key)).toBeUndefined();
      expect(await log.list(key)).toEqual({
        entries: [entry],
        dropped: 0,
        stopped: 'Capture stopped at 02:14 UTC: the browser it captured ended.',
      });
      // A write of the capture that stopped is refused; a new capture starts with no reason to give.
      expect(await log.append(key, 'c1', entry)).toBe(false);
      await log.begin(key, { id: 'c2', gridId: 'g', since: '2026-12-07T00:01:00Z' });
      expect(await log.list(key)).toEqual({ entries: [], dropped: 0 });
      await log.end(key);
      expect(await log.list(key)).toEqual({ entries: [], dropped: 0 });
    }
  });
});
