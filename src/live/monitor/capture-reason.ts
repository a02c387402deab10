import type { BidiEndpoint } from '../../grid/grid.js';
import { z } from 'zod';
import { globMatches } from '../../glob.js';
import { originShown } from '../../secrets/secret-call.js';
import type { BidiConnection } from './bidi.js';
import type { BidiMonitors, Reason } from './monitor.js';
import { isRequestType, type CaptureState, type NetworkEntry, type NetworkLog } from './network-log.js';

/** The browser a workspace captures, as the call that turns capture on knows it. */
export interface CaptureTarget {
  /** the workspace's store key */
  key: string;
  gridId: string;
  bidiAddress: BidiEndpoint | undefined;
  /** whether a text carries a value typed into this browser; asked per request, so later typing counts */
  carries(text: string): boolean;
}

/** What the capture reason writes to and asks while it runs. */
export interface CaptureDeps {
  monitors: BidiMonitors;
  log: NetworkLog;
  /** whether the workspace (store key) still holds this browser */
  holds(key: string, gridId: string): Promise<boolean>;
  /** the largest response body the browser keeps for network_body, in bytes */
  bodyBytes: number;
}

const MAX_URL_CHARS = 4000;
const MAX_PENDING = 1000;

/** A redirect's hops share the browser's request id; the entry id tells them apart with `~<hop>`. */
function entryIdOf(request: string, redirectCount: number): string {
  return redirectCount === 0 ? request : `${request}~${redirectCount}`;
}

/** The browser's request id of an entry (its redirect hop dropped), as network.getData wants it. */
export function bidiRequestOf(id: string): string {
  return id.replace(/~\d+$/, '');
}

/** What capture reads of a network event (beforeRequestSent, responseCompleted, fetchError). */
const requestEvent = z.object({
  request: z.object({
    request: z.string(),
    method: z.string(),
    url: z.string(),
    destination: z.string().nullish(),
    initiatorType: z.string().nullish(),
  }),
  redirectCount: z.number().nullish(),
  timestamp: z.number(),
  response: z
    .object({
      status: z.number(),
      mimeType: z.string().nullish(),
      content: z.object({ size: z.number().nullish() }).nullish(),
      bodySize: z.number().nullish(),
      bytesReceived: z.number().nullish(),
    })
    .optional(),
  errorText: z.string().optional(),
});

type RequestEvent = z.infer<typeof requestEvent>;

const dataCollector = z.object({ collector: z.string().optional() });

interface Pending {
  method: string;
  url: string;
  type: string;
  started: number;
}

const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * Network capture's monitor reason: turns the browser's network events into log entries, one
 * per finished request or redirect hop, and holds the data collector that keeps bodies.
 */
export class CaptureReason implements Reason {
  readonly events = ['network.beforeRequestSent', 'network.responseCompleted', 'network.fetchError'] as const;
  collector: string | undefined;
  private readonly pending = new Map<string, Pending>();
  private writes: Promise<unknown> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly target: CaptureTarget,
    private readonly state: CaptureState,
    private readonly options: CaptureDeps,
  ) {}

  async start(connection: BidiConnection): Promise<() => Promise<void>> {
    // Response bodies only: request bodies (what a form posted, a secret among them) are never kept.
    const { collector } = dataCollector.parse(
      await connection.send('network.addDataCollector', {
        dataTypes: ['response'],
        maxEncodedDataSize: this.options.bodyBytes,
      }),
    );
    this.collector = collector;
    return async () => {
      this.ended = true;
      if (collector) {
        await connection.send('network.removeDataCollector', { collector });
      }
    };
  }

  onEvent(event: string, params: unknown): void {
    const parsed = requestEvent.safeParse(params);
    if (!parsed.success) {
      return;
    }
    const p = parsed.data;
    const hop = entryIdOf(p.request.request, p.redirectCount ?? 0);
    if (event === 'network.beforeRequestSent') {
      this.remember(hop, p);
      return;
    }
    const started = this.pending.get(hop);
    this.pending.delete(hop);
    const entry = this.entryOf(hop, p, started);
    if (entry) {
      this.write(entry);
    }
  }

  onLost(why?: string): void {
    this.ended = true;
    this.pending.clear();
    // Nothing records any more, so the list must stop saying it captures, and say why: a page
    // can close the connection (bidi-over-cdp.ts), and so can the Grid or the mapper's failure.
    // What it recorded stays listed.
    void this.endLog(why).catch(() => undefined);
  }

  private async endLog(why: string | undefined): Promise<void> {
    if ((await this.options.log.state(this.target.key))?.id === this.state.id) {
      await this.options.log.end(this.target.key, why === undefined ? undefined : captureStopped(new Date(), why));
    }
  }

  async stillWanted(): Promise<boolean> {
    const [state, holds] = await Promise.all([
      this.options.log.state(this.target.key),
      this.options.holds(this.target.key, this.target.gridId),
    ]);
    return holds && state?.id === this.state.id;
  }

  private remember(hop: string, p: RequestEvent): void {
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) {
        this.pending.delete(oldest);
      }
    }
    this.pending.set(hop, {
      method: p.request.method,
      url: p.request.url,
      type: typeOf(p.request),
      started: p.timestamp,
    });
  }

  private entryOf(hop: string, p: RequestEvent, started: Pending | undefined): NetworkEntry | undefined {
    const url = started?.url ?? p.request.url;
    if (this.state.match !== undefined && !globMatches(this.state.match, url)) {
      return undefined;
    }
    const status = p.response ? p.response.status : null;
    const size = p.response ? sizeOf(p.response) : null;
    const withheld = this.target.carries(url);
    const bodyKept =
      !withheld &&
      this.collector !== undefined &&
      status !== null &&
      !NO_BODY_STATUS.has(status) &&
      !(status >= 300 && status < 400) &&
      (started?.method ?? p.request.method) !== 'HEAD' &&
      (size === null || size <= this.options.bodyBytes);
    return {
      id: hop,
      method: started?.method ?? p.request.method,
      url: withheld ? originShown(url) : url.length > MAX_URL_CHARS ? `${url.slice(0, MAX_URL_CHARS)}…` : url,
      status,
      type: started?.type ?? typeOf(p.request),
      mime_type: essenceOf(p.response?.mimeType),
      duration_ms: started ? Math.max(0, Math.round(p.timestamp - started.started)) : null,
      size,
      body: bodyKept,
      ...(p.errorText === undefined ? {} : { failed: p.errorText.slice(0, 200) }),
      ...(withheld ? { withheld: true as const } : {}),
    };
  }

  /** In order, one at a time; a write refused because capture moved on (off, or elsewhere) lets go. */
  private write(entry: NetworkEntry): void {
    this.writes = this.writes.then(async () => {
      if (this.ended) {
        return;
      }
      const kept = await this.options.log.append(this.target.key, this.state.id, entry).catch(() => true);
      if (!kept && !this.ended) {
        this.ended = true;
        await this.options.monitors.letGo(this.target.gridId, 'capture', this);
      }
    });
  }
}

/** What the list says once capture stopped by itself; `at` undefined when nobody saw when. */
export function captureStopped(at: Date | undefined, why: string): string {
  const when = at === undefined ? '' : ` at ${at.toISOString().slice(11, 16)} UTC`;
  return `Capture stopped${when}: ${why}. What it recorded stays listed; call capture_network with on: true to capture again (open_session first if the browser ended).`;
}

/**
 * The body's size: the decoded size (`content.size`) where the browser fills it, as Chromium
 * does. Firefox 153 answers 0 there and gives the body's bytes as received in `bodySize`;
 * Chromium's `bodySize` is every byte received, headers included, so it is taken only when it
 * is not that.
 */
function sizeOf(response: NonNullable<RequestEvent['response']>): number {
  const decoded = response.content?.size ?? 0;
  if (decoded > 0) {
    return decoded;
  }
  const body = response.bodySize ?? 0;
  return body > 0 && body !== response.bytesReceived ? body : 0;
}

/** `application/json` of `application/json;charset=utf-8`: Firefox sends the whole header, Chromium the essence. */
function essenceOf(mimeType: string | null | undefined): string | null {
  const essence = mimeType?.split(';')[0]?.trim().toLowerCase();
  return essence ? essence : null;
}

function typeOf(request: RequestEvent['request']): string {
  if (request.destination) {
    return isRequestType(request.destination) ? request.destination : 'other';
  }
  if (request.initiatorType === 'xmlhttprequest') {
    return 'xhr';
  }
  return request.initiatorType === 'fetch' ? 'fetch' : 'other';
}
