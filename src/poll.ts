import { setTimeout as delay } from 'node:timers/promises';

/**
 * Asks `attempt` until it answers (anything but undefined) or `withinMs` has passed, waiting
 * `everyMs` between tries; undefined when time ran out, for the caller to word. It always tries
 * once, and tries once more after a wait that ends past the deadline, so a slow round never
 * cuts the last look short. An attempt that throws ends the poll with its error.
 */
export async function poll<T>(
  attempt: () => Promise<T | undefined>,
  withinMs: number,
  everyMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await attempt();
    if (answer !== undefined) {
      return answer;
    }
    if (Date.now() >= deadline) {
      return undefined;
    }
    await delay(everyMs);
  }
}
