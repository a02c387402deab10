import { BadRequest, GridUnavailable } from '../errors.js';
import type { BrowserKind } from '../grid/capabilities.js';
import type { Grid, OpenedBrowser } from '../grid/grid.js';

// Opening a browser: how many opens are in flight per owner, and the bounded wait for a Grid slot.

/** Opens in flight in this process, per owner, so parallel opens cannot all slip under the cap. */
export class OpensInFlight {
  private readonly counts = new Map<string, number>();

  of(owner: string): number {
    return this.counts.get(owner) ?? 0;
  }

  /** Counts `work` against `owner` while it runs. */
  async during<T>(owner: string, work: () => Promise<T>): Promise<T> {
    this.counts.set(owner, this.of(owner) + 1);
    try {
      return await work();
    } finally {
      const left = this.of(owner) - 1;
      if (left > 0) {
        this.counts.set(owner, left);
      } else {
        this.counts.delete(owner);
      }
    }
  }
}

/**
 * The Grid's new-session queue can hold a request for minutes: the wait is bounded
 * (GRID_SLOT_WAIT, `seconds`), and a browser that arrives after the caller stopped waiting, or
 * went away, is ended as soon as it arrives.
 */
export function openWhileWanted(
  grid: Grid,
  kind: BrowserKind,
  size: { width: number; height: number },
  seconds: number,
  abandoned: AbortSignal | undefined,
): Promise<OpenedBrowser> {
  const pending = grid.open(kind, size);
  return new Promise<OpenedBrowser>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void): boolean => {
      if (settled) {
        return false;
      }
      settled = true;
      clearTimeout(timer);
      abandoned?.removeEventListener('abort', onAbort);
      finish();
      return true;
    };
    const onAbort = () => settle(() => reject(abandonedError()));
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new GridUnavailable(
              `No Grid slot came free within ${seconds} s (GRID_SLOT_WAIT); end a browser you no longer need and retry, or raise GRID_SLOT_WAIT or the Grid's capacity.`,
            ),
          ),
        ),
      seconds * 1000,
    );
    abandoned?.addEventListener('abort', onAbort, { once: true });
    if (abandoned?.aborted) {
      onAbort();
    }
    pending.then(
      (opened) => {
        if (!settle(() => resolve(opened))) {
          void grid.end(opened.gridId).catch(() => undefined);
        }
      },
      (err: Error) => settle(() => reject(err)),
    );
  });
}

export function abandonedError(): BadRequest {
  return new BadRequest(
    'The caller went away while its browser was opening, so the browser was ended; call open_session again.',
  );
}
