import type { LiveStore } from '../live/live-store.js';
import type { RedisConnection } from './connection.js';
import { LIVE_PREFIX } from './keys.js';

/** The live view's keys in the Redis the replicas share, under `selenium-flow:live:`. */
export class RedisLiveStore implements LiveStore {
  constructor(private readonly connection: RedisConnection) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.connection.call((redis) => redis.set(LIVE_PREFIX + key, value, 'PX', Math.max(1, Math.ceil(ttlMs))));
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.connection.call((redis) => redis.get(LIVE_PREFIX + key))) ?? undefined;
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.connection.call((redis) => redis.getdel(LIVE_PREFIX + key))) ?? undefined;
  }

  async delete(key: string): Promise<void> {
    await this.connection.call((redis) => redis.del(LIVE_PREFIX + key));
  }
}
