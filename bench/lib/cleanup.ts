/**
 * Everything the bench starts registers how to stop it here; `run()` stops it all in reverse
 * order, each stop bounded, even when an earlier one fails. It runs on success, on failure,
 * on SIGINT/SIGTERM and when the watchdog fires.
 */
export class Cleanup {
  private readonly stops: { name: string; stop: () => Promise<void> }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, stop: () => Promise<void>): void {
    this.stops.push({ name, stop });
  }

  /** Runs a stop now and forgets it, for things that end before the bench does. */
  async release(name: string): Promise<void> {
    let index = this.stops.length - 1;
    while (index >= 0 && this.stops[index]?.name !== name) {
      index--;
    }
    if (index < 0) {
      return;
    }
    const [entry] = this.stops.splice(index, 1);
    if (entry) {
      await bounded(entry.name, entry.stop());
    }
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (let entry = this.stops.pop(); entry; entry = this.stops.pop()) {
        try {
          await bounded(entry.name, entry.stop());
        } catch (err) {
          process.stderr.write(
            `bench: stopping ${entry.name} failed: ${err instanceof Error ? err.message : String(err)}\n`,
          );
        }
      }
    })();
    return this.running;
  }
}

const STOP_TIMEOUT_MS = 25_000;

async function bounded(name: string, work: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${name} did not stop within ${STOP_TIMEOUT_MS / 1000} s`)),
      STOP_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Rejects with `what` when `work` takes longer than `ms`. */
export async function withTimeout<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a bench's main with everything it starts stopped at the end: on success, on failure,
 * on SIGINT/SIGTERM, and when the watchdog fires after `timeoutMinutes`.
 */
export function runBench(main: (cleanup: Cleanup) => Promise<void>, timeoutMinutes: number): void {
  const cleanup = new Cleanup();
  let exiting = false;
  const stopAndExit = (code: number, why?: string) => {
    if (exiting) {
      return;
    }
    exiting = true;
    if (why) {
      process.stderr.write(`bench: ${why}\n`);
    }
    void cleanup.run().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => stopAndExit(130, 'interrupted: stopping everything the bench started'));
  process.once('SIGTERM', () => stopAndExit(143, 'terminated: stopping everything the bench started'));
  const watchdog = setTimeout(
    () => stopAndExit(1, `the bench took longer than ${timeoutMinutes} minutes: stopping`),
    timeoutMinutes * 60_000,
  );
  watchdog.unref();
  main(cleanup).then(
    () => stopAndExit(0),
    (err: unknown) => {
      process.stderr.write(`bench FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      stopAndExit(1);
    },
  );
}
