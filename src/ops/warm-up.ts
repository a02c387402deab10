import { seleniumCommand, seleniumHttp } from '../browser/webdriver.js';
import type { GridOffers } from '../grid/offers.js';
import { stderrLogger } from './log.js';
import { prepareMetrics } from './metrics.js';

/** A client that has not listed its tools by then is not coming soon: the rest loads anyway. */
const REST_AFTER_MS = 1_000;

/**
 * What a fresh process's first call would otherwise do before its browser (issue 51), done
 * beforehand. At start, while the client handshakes: read what the Grid offers, on the
 * keep-alive connection the first new session then takes. Once a client has listed its tools
 * (its start answered, so none of this delays it): load selenium-webdriver's HTTP executor, the
 * logger a call's line is written with and the metrics it is counted in. One step per turn of
 * the event loop, so a call that comes meanwhile waits for one step at most; the WebDriver class
 * itself loads while the Grid starts the first browser (grid/new-session.ts). A step that fails
 * is done again where it is needed, and fails there with its reason.
 */
export class WarmUp {
  private state: 'waiting' | 'started' | 'loading' = 'waiting';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly offers: GridOffers,
    /** LOG_LEVEL where a call's line goes to stderr (stdio); undefined where the logger is the HTTP server's */
    private readonly logLevel: string | undefined,
  ) {}

  start(): void {
    if (this.state !== 'waiting') {
      return;
    }
    this.state = 'started';
    void this.offers.refresh().catch(() => undefined);
    this.timer = setTimeout(() => this.listed(), REST_AFTER_MS);
    this.timer.unref();
  }

  /** A client listed the tools; nothing before start(). */
  listed(): void {
    if (this.state !== 'started') {
      return;
    }
    this.state = 'loading';
    clearTimeout(this.timer);
    const level = this.logLevel;
    const steps = [
      () => seleniumHttp(),
      () => seleniumCommand(),
      ...(level === undefined || level === 'silent' ? [] : [() => stderrLogger(level)]),
      prepareMetrics,
    ];
    const next = () => {
      const step = steps.shift();
      if (!step) {
        return;
      }
      try {
        step();
      } catch {
        // done again, and refused with its reason, by the first call that needs it
      }
      setImmediate(next);
    };
    setImmediate(next);
  }
}
