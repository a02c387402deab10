import type { RecordStore, WorkspaceRecord } from '../workspace/records.js';
import type { RedisConnection } from './connection.js';
import { RECORD_PREFIX } from './keys.js';

/** Keys per MGET: one round trip each, small enough not to hold Redis up for other replicas. */
const MGET_BATCH = 200;

/**
 * Workspace records in Redis: one JSON string per workspace under RECORD_PREFIX, written
 * whole by one SET (so no record is ever half-written) with a PX expiry that every write
 * renews: the TTL slides while a workspace is used, as in the memory store.
 */
export class RedisRecordStore implements RecordStore {
  private readonly ttlMs: number;

  constructor(
    private readonly connection: RedisConnection,
    ttlSeconds: number,
    private readonly prefix: string = RECORD_PREFIX,
  ) {
    this.ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
  }

  async get(key: string): Promise<WorkspaceRecord | undefined> {
    const raw = await this.connection.call((c) => c.get(this.prefix + key));
    return raw === null ? undefined : (JSON.parse(raw) as WorkspaceRecord);
  }

  async getMany(keys: readonly string[]): Promise<(WorkspaceRecord | undefined)[]> {
    const found: (WorkspaceRecord | undefined)[] = [];
    for (let at = 0; at < keys.length; at += MGET_BATCH) {
      const batch = keys.slice(at, at + MGET_BATCH).map((key) => this.prefix + key);
      const raws = await this.connection.call((c) => c.mget(...batch));
      found.push(...raws.map((raw) => (raw === null ? undefined : (JSON.parse(raw) as WorkspaceRecord))));
    }
    return found;
  }

  async put(key: string, record: WorkspaceRecord): Promise<void> {
    const json = JSON.stringify(record);
    await this.connection.call((c) => c.set(this.prefix + key, json, 'PX', this.ttlMs));
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

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
