/**
 * Calls on one browser take turns, first come first served, so two agents on one workspace
 * never interleave commands. This is the in-process implementation; replicas sharing Redis
 * use RedisTurns (redis-turns.ts) behind the same interface.
 */
export interface Turns {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

export class LocalTurns implements Turns {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const mine = previous.then(fn, fn);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      // The last in line cleans up, so idle keys do not accumulate.
      if (this.tails.get(key) === tail) {
        this.tails.delete(key);
      }
    }
  }
}
