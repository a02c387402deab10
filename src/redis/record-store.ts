import { holdsBrowserOf, type HeldRecord, type RecordStore, type WorkspaceRecord } from '../workspace/records.js';
import type { RedisConnection } from './connection.js';
import { OWNER_PREFIX, RECORD_PREFIX } from './keys.js';

/** Keys per MGET: one round trip each, small enough not to hold Redis up for other replicas. */
const MGET_BATCH = 200;

// An owner's index, read and pruned in one atomic step: the keys whose record still holds a
// browser of theirs, with the record; the rest leave the set. It reads the records by keys it
// derives, so like the turns it needs a single Redis (or a primary with replicas), not Cluster.
const HELD_BY = `
local held = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local raw = redis.call('GET', ARGV[1] .. key)
  local ok, record = false, nil
  if raw then
    ok, record = pcall(cjson.decode, raw)
  end
  if ok and type(record) == 'table' and type(record.gridId) == 'string' and record.owner == ARGV[2] then
    held[#held + 1] = { key, raw }
  else
    redis.call('SREM', KEYS[1], key)
  end
end
return held
`;

/**
 * Workspace records in Redis: one JSON string per workspace under RECORD_PREFIX, written
 * whole by one SET (so no record is ever half-written) with a PX expiry that every write
 * renews: the TTL slides while a workspace is used, as in the memory store. A record holding a
 * browser is added, in the same transaction, to its owner's set under OWNER_PREFIX, whose TTL
 * every such write renews too, so the set outlives each record in it.
 */
export class RedisRecordStore implements RecordStore {
  private readonly ttlMs: number;

  constructor(
    private readonly connection: RedisConnection,
    ttlSeconds: number,
    private readonly prefix: string = RECORD_PREFIX,
    private readonly ownerPrefix: string = OWNER_PREFIX,
  ) {
    this.ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
  }

  async get(key: string): Promise<WorkspaceRecord | undefined> {
    const raw = await this.connection.call((c) => c.get(this.prefix + key));
    return raw === null ? undefined : parsed(raw);
  }

  async getMany(keys: readonly string[]): Promise<(WorkspaceRecord | undefined)[]> {
    const found: (WorkspaceRecord | undefined)[] = [];
    for (let at = 0; at < keys.length; at += MGET_BATCH) {
      const batch = keys.slice(at, at + MGET_BATCH).map((key) => this.prefix + key);
      const raws = await this.connection.call((c) => c.mget(...batch));
      found.push(...raws.map((raw) => (raw === null ? undefined : parsed(raw))));
    }
    return found;
  }

  async put(key: string, record: WorkspaceRecord): Promise<void> {
    const json = JSON.stringify(record);
    const { gridId, owner } = record;
    if (gridId === undefined || owner === undefined) {
      await this.connection.call((c) => c.set(this.prefix + key, json, 'PX', this.ttlMs));
      return;
    }
    const owned = this.ownerPrefix + owner;
    await this.connection.call((c) =>
      c
        .multi()
        .set(this.prefix + key, json, 'PX', this.ttlMs)
        .sadd(owned, key)
        .pexpire(owned, this.ttlMs)
        .exec(),
    );
  }

  async heldBy(owner: string): Promise<[string, HeldRecord][]> {
    const answer = await this.connection.call((c) => c.eval(HELD_BY, 1, this.ownerPrefix + owner, this.prefix, owner));
    const pairs = isList(answer) ? answer : [];
    return pairs.flatMap((pair): [string, HeldRecord][] => {
      const [key, raw] = isList(pair) ? pair : [];
      const record = typeof raw === 'string' ? parsed(raw) : undefined;
      return typeof key === 'string' && holdsBrowserOf(record, owner) ? [[key, record]] : [];
    });
  }

  async delete(key: string): Promise<void> {
    await this.connection.call((c) => c.del(this.prefix + key));
  }

  /** SCAN, not KEYS: it never blocks a Redis that other replicas are using. */
  async keys(): Promise<string[]> {
    const found = new Set<string>();
    const pattern = `${escapeGlob(this.prefix)}*`;
    let cursor = '0';
    do {
      const [next, batch] = await this.connection.call((c) => c.scan(cursor, 'MATCH', pattern, 'COUNT', 200));
      cursor = next;
      for (const key of batch) {
        found.add(key.slice(this.prefix.length));
      }
    } while (cursor !== '0');
    return [...found];
  }

  async ping(): Promise<void> {
    await this.connection.call((c) => c.ping());
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

/** Our own document, written whole by put. */
function parsed(raw: string): WorkspaceRecord {
  return JSON.parse(raw) as WorkspaceRecord;
}

/** Array.isArray, without letting its `any[]` in: what Lua answered is read as unknown. */
function isList(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
