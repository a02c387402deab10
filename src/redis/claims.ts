import type { ClaimAnswer, WorkspaceClaims } from '../quotas/workspaces.js';
import type { RedisConnection } from './connection.js';
import { CLAIMS_PREFIX } from './keys.js';

/**
 * Checks and adds in one step: two replicas taking an owner's last place at once cannot both
 * get it. A sorted set per owner, each name scored by when it was last named. 1: held already;
 * 2: added; 0: full. The set lives a month past its last claim: an owner who stopped calling is
 * forgotten.
 */
const CLAIM = `
local set, name, most, now, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local held = redis.call('ZSCORE', set, name)
if not held and redis.call('ZCARD', set) >= most then
  return 0
end
redis.call('ZADD', set, now, name)
redis.call('PEXPIRE', set, ttl)
if held then
  return 1
end
return 2
`;

const SET_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const ANSWERS: Record<number, ClaimAnswer> = { 0: 'full', 1: 'held', 2: 'added' };

/** WORKSPACES_PER_TOKEN's sets, shared by the replicas: one per owner under CLAIMS_PREFIX. */
export class RedisWorkspaceClaims implements WorkspaceClaims {
  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string = CLAIMS_PREFIX,
  ) {}

  async claim(owner: string, workspace: string, most: number, now: number): Promise<ClaimAnswer> {
    const answer = await this.connection.call((c) =>
      c.eval(CLAIM, 1, this.prefix + owner, workspace, String(most), String(now), String(SET_TTL_MS)),
    );
    return ANSWERS[Number(answer)] ?? 'full';
  }

  async members(owner: string): Promise<string[]> {
    return this.connection.call((c) => c.zrange(this.prefix + owner, '0', '-1'));
  }

  async idle(owner: string, before: number): Promise<string[]> {
    return this.connection.call((c) => c.zrangebyscore(this.prefix + owner, '-inf', `(${before}`));
  }

  async forget(workspace: string): Promise<void> {
    // An operator's act, rare: a walk over the owners' sets (SCAN, never KEYS), one ZREM each.
    let cursor = '0';
    do {
      const [next, keys] = await this.connection.call((c) => c.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 200));
      cursor = next;
      for (const key of keys) {
        await this.connection.call((c) => c.zrem(key, workspace));
      }
    } while (cursor !== '0');
  }

  async release(owner: string, workspaces: readonly string[]): Promise<void> {
    if (workspaces.length > 0) {
      await this.connection.call((c) => c.zrem(this.prefix + owner, ...workspaces));
    }
  }
}
