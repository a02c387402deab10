import { setTimeout as delay } from 'node:timers/promises';
import { Stopping } from '../errors.js';
import { global } from './plugins/global.js';

/** What a call that arrives while this replica stops is told, and how soon to call again. */
export const STOPPING =
  'This replica of selenium-flow is stopping and takes no new call; call again in a moment, and another replica (or this server, restarted) answers. Your workspace, its browser and its files are kept.';
const RETRY_AFTER_SECONDS = 1;

/** The probes that still answer while stopping: the process lives. /ready answers 503, so a balancer stops sending. */
const STILL_ANSWERED = ['/health', '/started'];

/**
 * A clean stop (SIGTERM): from `begin`, every new request is answered 503 with a sentence and
 * Retry-After, and what waits (an await_control, a notification stream, a live view) is answered
 * at once through `signal` and `onBegin`; the calls already running go on until they end or the
 * grace does. The browsers stay on the Grid: the next replica reattaches to them by their records.
 */
export class Drain {
  private readonly stopping = new AbortController();
  private readonly listeners: (() => void)[] = [];
  private running = 0;
  private idle: (() => void) | undefined;

  /** aborted when the stop begins: a wait that listens to it answers now */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get draining(): boolean {
    return this.stopping.signal.aborted;
  }

  /** `end` runs when the stop begins (a stream ends, a waiting client is answered) */
  onBegin(end: () => void): void {
    this.listeners.push(end);
  }

  begin(): void {
    if (this.draining) {
      return;
    }
    this.stopping.abort();
    for (const end of this.listeners) {
      end();
    }
  }

  /** Resolves when no call is running any more, or after `graceMs`: answers whether they all ended. */
  async settled(graceMs: number): Promise<boolean> {
    if (this.running === 0) {
      return true;
    }
    const ended = new Promise<true>((resolve) => (this.idle = () => resolve(true)));
    const timer = new AbortController();
    const answer = await Promise.race([ended, delay(graceMs, false, { signal: timer.signal }).catch(() => false)]);
    timer.abort();
    return answer;
  }

  /** Counts a request from its arrival to its answer's end (or its client going away). */
  track(done: (ended: () => void) => void): void {
    this.running += 1;
    done(() => {
      this.running -= 1;
      if (this.running === 0) {
        this.idle?.();
      }
    });
  }
}

/**
 * The gate every request passes first: while stopping, a 503 `stopping` with Retry-After and
 * `Connection: close` (a keep-alive client opens its next connection elsewhere); otherwise the
 * request is counted while it runs, so the stop knows when the last one ended.
 */
export const drainGate = global<{ drain: Drain }>(async (app, { drain }) => {
  app.addHook('onRequest', async (request, reply) => {
    if (!drain.draining) {
      drain.track((ended) => reply.raw.once('close', ended));
      return;
    }
    const path = request.routeOptions.url ?? '';
    if (STILL_ANSWERED.some((probe) => path.endsWith(probe))) {
      return;
    }
    void reply.header('retry-after', String(RETRY_AFTER_SECONDS)).header('connection', 'close');
    throw new Stopping(STOPPING);
  });
});
