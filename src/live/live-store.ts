import type { z } from 'zod';

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

/** How often a put also drops what has expired (a ticket minted and never used is never read again). */
const SWEEP_EVERY_MS = 10_000;

export class MemoryLiveStore implements LiveStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private sweptAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.sweptAt = now();
  }

  /** How many entries it holds, expired ones not yet swept among them. */
  get size(): number {
    return this.entries.size;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.now();
    // Without it, a caller minting live tickets it never uses grows this map for as long as the
    // server runs; swept, it holds at most what the last TTL and sweep interval minted.
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      for (const [stored, entry] of this.entries) {
        if (entry.expiresAt <= now) {
          this.entries.delete(stored);
        }
      }
    }
    this.entries.set(key, { value, expiresAt: now + ttlMs });
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry?.value;
  }

  async take(key: string): Promise<string | undefined> {
    const value = await this.get(key);
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
