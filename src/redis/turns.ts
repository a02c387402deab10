import { randomUUID } from 'node:crypto';
import type { Result } from 'ioredis';
import { setTimeout as delay } from 'node:timers/promises';
import { TimedOut } from '../errors.js';
import type { Turns } from '../workspace/turns.js';
import type { RedisConnection } from './connection.js';
import { TURN_PREFIX } from './keys.js';

export interface RedisTurnsOptions {
  /** how long a turn is held without renewal before others may take it (a crashed replica's limit) */
  leaseMs?: number;
  /** longest a call waits in line before it answers 504 */
  waitMs?: number;
  /** how often a waiting call looks again */
  pollMs?: number;
  /** where the lines' keys start (TURN_PREFIX) */
  prefix?: string;
}

/*
 * Turns across replicas: calls on one browser run one at a time, first come first served,
 * whichever replica each arrives at. The design, and why:
 *
 * - A line per browser: `…turn:<key>:queue`, a Redis list. A call joins by RPUSHing a random
 *   token; Redis orders concurrent pushes, so the list order is the arrival order (FIFO), with no
 *   clock shared between replicas.
 * - The turn itself: `…turn:<key>:holder` = the holder's token, SET with PX (the lease). The
 *   holder renews it every lease/3 while its call runs, so a long call keeps its turn; a replica
 *   that crashes stops renewing and its turn ends by itself within one lease.
 * - A waiter proves it is alive with `…turn:<key>:alive:<token>` (PX, refreshed on every look).
 *   A token whose waiter died is dropped when it reaches the head of the line, so a dead waiter
 *   cannot block the line either. (A ticket counter with "now serving" is simpler on the happy
 *   path, but a ticket whose owner died would stall the counter forever.)
 * - One Lua script (atomic) joins and/or looks: the turn is granted only when no lease is held and
 *   the caller's token is at the head. Releasing and renewing are compare-and-act scripts on the
 *   token, so a replica whose lease expired never ends or extends somebody else's turn.
 * - Waiters look again every pollMs rather than waiting for a pub/sub message: no second
 *   connection, nothing lost across a reconnect, and turns are only contended when two calls
 *   target one browser at once (each workspace has its own line).
 *
 * The scripts touch keys derived from the line's name, so this needs a single Redis (or a
 * primary with replicas), not Redis Cluster.
 */
const TRY = `
local queue, holder = KEYS[1], KEYS[2]
local token, lease, alive, joining = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] == '1'
if joining then
  redis.call('RPUSH', queue, token)
elseif not redis.call('LPOS', queue, token) then
  return -1
end
redis.call('SET', alive .. token, '1', 'PX', lease)
if redis.call('EXISTS', holder) == 1 then
  return 0
end
while true do
  local head = redis.call('LINDEX', queue, 0)
  if not head then
    return -1
  end
  if head == token then
    redis.call('LPOP', queue)
    redis.call('DEL', alive .. token)
    redis.call('SET', holder, token, 'PX', lease)
    return 1
  end
  if redis.call('EXISTS', alive .. head) == 1 then
    return 0
  end
  redis.call('LPOP', queue)
end
`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

const LEAVE = `
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('DEL', ARGV[2] .. ARGV[1])
return 1
`;

// The scripts as the client's own commands (ioredis's documented way to type defineCommand).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    sfTurnTry(
      queue: string,
      holder: string,
      token: string,
      leaseMs: number,
      alive: string,
      joining: '0' | '1',
    ): Result<number, Context>;
    sfTurnRenew(holder: string, token: string, leaseMs: number): Result<number, Context>;
    sfTurnRelease(holder: string, token: string): Result<number, Context>;
    sfTurnLeave(queue: string, token: string, alive: string): Result<number, Context>;
  }
}

export class RedisTurns implements Turns {
  private readonly leaseMs: number;
  private readonly waitMs: number;
  private readonly pollMs: number;
  private readonly prefix: string;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisTurnsOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 5_000;
    this.waitMs = options.waitMs ?? 120_000;
    this.pollMs = options.pollMs ?? 20;
    this.prefix = options.prefix ?? TURN_PREFIX;
    // defineCommand runs scripts by EVALSHA and reloads them after a Redis restart.
    const client = connection.client;
    client.defineCommand('sfTurnTry', { numberOfKeys: 2, lua: TRY });
    client.defineCommand('sfTurnRenew', { numberOfKeys: 1, lua: RENEW });
    client.defineCommand('sfTurnRelease', { numberOfKeys: 1, lua: RELEASE });
    client.defineCommand('sfTurnLeave', { numberOfKeys: 1, lua: LEAVE });
  }

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const line = this.keysOf(key);
    const token = randomUUID();
    await this.acquire(line, token);
    const renewal = setInterval(
      () => {
        // A failed renewal is not the call's failure: at worst the lease runs out and the next call goes.
        this.connection.call((client) => client.sfTurnRenew(line.holder, token, this.leaseMs)).catch(() => undefined);
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    try {
      return await fn();
    } finally {
      clearInterval(renewal);
      // If Redis is away now, the lease ends the turn by itself.
      await this.connection.call((client) => client.sfTurnRelease(line.holder, token)).catch(() => undefined);
    }
  }

  private async acquire(line: Line, token: string): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    let joining = true;
    try {
      for (;;) {
        const joined: boolean = joining;
        const answer: number = await this.connection.call((client) =>
          client.sfTurnTry(line.queue, line.holder, token, this.leaseMs, line.alive, joined ? '1' : '0'),
        );
        joining = answer === -1; // our place lapsed (we were too slow to look): join again at the back
        if (answer === 1) {
          return;
        }
        if (Date.now() >= deadline) {
          throw new TimedOut(
            `Waited ${Math.round(this.waitMs / 1000)} s for this browser's turn while other calls used it; call again when they are done, or use another workspace for parallel work.`,
          );
        }
        if (!joining) {
          await delay(this.pollMs);
        }
      }
    } catch (err) {
      await this.connection.call((client) => client.sfTurnLeave(line.queue, token, line.alive)).catch(() => undefined);
      throw err;
    }
  }

  private keysOf(key: string): Line {
    const base = `${this.prefix}${key}:`;
    return { queue: `${base}queue`, holder: `${base}holder`, alive: `${base}alive:` };
  }
}

interface Line {
  queue: string;
  holder: string;
  alive: string;
}
