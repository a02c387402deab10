import type { z } from 'zod';
import { ExpiringMap } from '../expiring-map.js';

/**
 * What the live view keeps beside the workspace records, in the same store (memory, or the
 * Redis every replica shares): the tunnel tickets, single-use, and each workspace's Control
 * episode. A ticket minted through replica A opens a tunnel on replica B; a person's control
 * taken through A refuses agents on B.
 */
export interface LiveStore {
  /** Keeps `value` under `key` for `ttlMs`. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | undefined>;
  /** Reads and deletes at once: of two takers, one gets the value. */
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
}

export class MemoryLiveStore implements LiveStore {
  private readonly entries: ExpiringMap<string>;

  constructor(now: () => number = Date.now) {
    this.entries = new ExpiringMap(now);
  }

  /** How many entries it holds, expired ones not yet swept among them. */
  get size(): number {
    return this.entries.size;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, value, ttlMs);
  }

  async get(key: string): Promise<string | undefined> {
    return this.entries.get(key);
  }

  async take(key: string): Promise<string | undefined> {
    const value = this.entries.get(key);
    this.entries.delete(key);
    return value;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/**
 * One kind of document in a LiveStore: its key, how long it lives, and its shape. A document is
 * read back through its schema because another replica, of another version, may have written it.
 */
export class LiveDocuments<T> {
  constructor(
    private readonly store: LiveStore,
    private readonly keyOf: (id: string) => string,
    private readonly shape: z.ZodType<T>,
    private readonly ttlMs: number,
  ) {}

  async put(id: string, document: T): Promise<void> {
    await this.store.put(this.keyOf(id), JSON.stringify(document), this.ttlMs);
  }

  async get(id: string): Promise<T | undefined> {
    return this.read(await this.store.get(this.keyOf(id)));
  }

  /** Reads and deletes at once: of two takers, one gets the document. */
  async take(id: string): Promise<T | undefined> {
    return this.read(await this.store.take(this.keyOf(id)));
  }

  async delete(id: string): Promise<void> {
    await this.store.delete(this.keyOf(id));
  }

  private read(raw: string | undefined): T | undefined {
    return raw === undefined ? undefined : this.shape.parse(JSON.parse(raw));
  }
}
