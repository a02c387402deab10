import type { CaptureState, NetworkEntry, NetworkListing, NetworkLog } from '../live/monitor/network-log.js';
import type { RedisConnection } from './connection.js';
import { NETWORK_PREFIX } from './keys.js';

// Only while the capture is still this one: push, drop the oldest beyond the limit and count
// them, and slide the expiry, as one atomic step.
const APPEND = `
local state = redis.call('GET', KEYS[3])
if not state or cjson.decode(state).id ~= ARGV[4] then
  return -1
end
local length = redis.call('RPUSH', KEYS[1], ARGV[1])
local over = length - tonumber(ARGV[2])
if over > 0 then
  redis.call('LTRIM', KEYS[1], over, -1)
  redis.call('INCRBY', KEYS[2], over)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return length
`;

/** The log in the Redis the replicas share: a list, a dropped count and the state, per workspace. */
export class RedisNetworkLog implements NetworkLog {
  constructor(
    private readonly redis: RedisConnection,
    private readonly limit: number,
    private readonly ttlSeconds: number,
  ) {}

  async begin(key: string, state: CaptureState): Promise<void> {
    const [entries, dropped, stateKey, stopped] = keysOf(key);
    await this.redis.call((client) =>
      client
        .multi()
        .del(entries, dropped, stopped)
        .set(stateKey, JSON.stringify(state), 'PX', this.ttlSeconds * 1000)
        .exec(),
    );
  }

  async put(key: string, state: CaptureState): Promise<void> {
    await this.redis.call((client) => client.set(keysOf(key)[2], JSON.stringify(state), 'PX', this.ttlSeconds * 1000));
  }

  async state(key: string): Promise<CaptureState | undefined> {
    const raw = await this.redis.call((client) => client.get(keysOf(key)[2]));
    return raw === null ? undefined : (JSON.parse(raw) as CaptureState);
  }

  async end(key: string, stopped?: string): Promise<void> {
    const [, , stateKey, stoppedKey] = keysOf(key);
    if (stopped === undefined) {
      await this.redis.call((client) => client.del(stateKey));
      return;
    }
    await this.redis.call((client) =>
      client
        .multi()
        .del(stateKey)
        .set(stoppedKey, stopped, 'PX', this.ttlSeconds * 1000)
        .exec(),
    );
  }

  async append(key: string, id: string, entry: NetworkEntry): Promise<boolean> {
    const [entries, dropped, state] = keysOf(key);
    const length = await this.redis.call((client) =>
      client.eval(APPEND, 3, entries, dropped, state, JSON.stringify(entry), this.limit, this.ttlSeconds * 1000, id),
    );
    return Number(length) > 0;
  }

  async list(key: string): Promise<NetworkListing> {
    const [entries, dropped, , stopped] = keysOf(key);
    const [raw, count, why] = await this.redis.call((client) =>
      Promise.all([client.lrange(entries, 0, -1), client.get(dropped), client.get(stopped)]),
    );
    return {
      entries: raw.map((line) => JSON.parse(line) as NetworkEntry),
      dropped: Number(count ?? 0),
      ...(why === null ? {} : { stopped: why }),
    };
  }
}

function keysOf(key: string): [string, string, string, string] {
  return [
    `${NETWORK_PREFIX}${key}:entries`,
    `${NETWORK_PREFIX}${key}:dropped`,
    `${NETWORK_PREFIX}${key}:state`,
    `${NETWORK_PREFIX}${key}:stopped`,
  ];
}
