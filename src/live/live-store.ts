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
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
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
