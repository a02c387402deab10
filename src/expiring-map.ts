/** How often a write also drops what has expired: an entry never read again would stay for good. */
const SWEEP_EVERY_MS = 10_000;

/**
 * The memory stores' map (workspace records, live tickets): each entry lives for its own TTL.
 * A read drops an expired entry, and a write sweeps every expired one at most every 10 s, so a
 * key nobody reads again (a live ticket minted and never used, a workspace left behind) costs
 * memory for its TTL, not for the life of the process.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private sweptAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.sweptAt = now();
  }

  /** How many entries it holds, expired ones not yet swept among them. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry?.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    const now = this.now();
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

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** The keys of the entries still alive. */
  keys(): string[] {
    const now = this.now();
    return [...this.entries].filter(([, e]) => e.expiresAt > now).map(([key]) => key);
  }

  clear(): void {
    this.entries.clear();
  }
}
