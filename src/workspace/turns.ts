import { TimedOut } from '../errors.js';

/**
 * Calls on one browser take turns, first come first served, so two agents on one workspace
 * never interleave commands. This is the in-process implementation; replicas sharing Redis
 * use RedisTurns (redis/turns.ts) behind the same interface.
 */
export interface Turns {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

export class LocalTurns implements Turns {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** waitMs: longest a call waits in line before it answers 504 (as RedisTurns) */
  constructor(private readonly waitMs = 120_000) {}

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const gaveUp = new TimedOut(
      `Waited ${Math.round(this.waitMs / 1000)} s for this browser's turn while other calls used it; call again when they are done, or use another workspace for parallel work.`,
    );
    let begun = false;
    let abandoned = false;
    // A call that gave up waiting keeps its place in line but does nothing when its turn comes.
    const start = (): Promise<T> => {
      if (abandoned) {
        throw gaveUp;
      }
      begun = true;
      return fn();
    };
    const mine = previous.then(start, start);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    // The last in line cleans up once its turn is over, so idle keys do not accumulate.
    void tail.then(() => {
      if (this.tails.get(key) === tail) {
        this.tails.delete(key);
      }
    });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        if (!begun) {
          abandoned = true;
          reject(gaveUp);
        }
      }, this.waitMs);
    });
    try {
      return await Promise.race([mine, waited]);
    } finally {
      clearTimeout(timer);
    }
  }
}
