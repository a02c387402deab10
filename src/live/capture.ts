import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BadRequest, NotFound } from '../errors.js';
import { globMatches } from '../glob.js';
import { originShown } from '../secrets/secret-call.js';
import { BidiCommandError, type BidiConnection } from './bidi.js';
import type { BidiMonitors, Reason } from './monitor.js';
import type { CaptureState, NetworkEntry, NetworkLog } from './network-log.js';

/** The browser a workspace captures, as the call that turns capture on knows it. */
export interface CaptureTarget {
  /** the workspace's store key */
  key: string;
  gridId: string;
  bidiAddress: string | undefined;
  /** whether a text carries a value typed into this browser; asked per request, so later typing counts */
  carries(text: string): boolean;
}

export interface NetworkCaptureOptions {
  monitors: BidiMonitors;
  log: NetworkLog;
  /** opens a short connection, for reading a body on a replica that holds no monitor for the browser */
  connect(address: string): Promise<BidiConnection>;
  /** whether the workspace (store key) still holds this browser */
  holds(key: string, gridId: string): Promise<boolean>;
  /** the largest response body the browser keeps for network_body, in bytes */
  bodyBytes: number;
}

export interface NetworkFilter {
  match?: string;
  type?: string;
  /** "404", "4xx", or "failed" */
  status?: string;
}

export interface CaptureListing {
  capturing: boolean;
  match: string | null;
  requests: NetworkEntry[];
  /** the oldest requests dropped to keep the limit, since capture began */
  dropped: number;
}

/** A response body as the browser kept it: text, or bytes it could not answer as text. */
export interface CapturedBody {
  entry: NetworkEntry;
  text?: string;
  bytes?: Buffer;
}

const MAX_MATCH_CHARS = 1000;
const MAX_URL_CHARS = 4000;
const MAX_PENDING = 1000;
const MAX_STARS = 16;

/** The one rule for a `match` URL glob (only `*` is special); the refusal says how to mend it. */
export function matchProblem(match: string): string | undefined {
  if (match === '' || match.length > MAX_MATCH_CHARS || /[\s\p{Cc}]/u.test(match)) {
    return `match must be a URL glob of 1 to ${MAX_MATCH_CHARS} characters without spaces, where * stands for any run of characters (e.g. "*/api/*"); pass one such as that, or leave match out to capture every request.`;
  }
  if (match.split('*').length - 1 > MAX_STARS) {
    return `match may hold at most ${MAX_STARS} * wildcards; pass a simpler glob such as "*/api/*".`;
  }
  return undefined;
}

/**
 * Network capture: the monitor's `capture` reason. The replica that turns it on holds the
 * browser's BiDi connection and writes each finished request into the workspace's log, where
 * every replica lists it; bodies stay in the browser (a BiDi data collector) until read.
 */
export class NetworkCapture {
  constructor(private readonly options: NetworkCaptureOptions) {}

  async start(target: CaptureTarget, match: string | undefined): Promise<CaptureState> {
    const problem = match === undefined ? undefined : matchProblem(match);
    if (problem) {
      throw new BadRequest(problem);
    }
    const { log, monitors } = this.options;
    const state: CaptureState = {
      id: randomUUID(),
      gridId: target.gridId,
      ...(match === undefined ? {} : { match }),
      since: new Date().toISOString(),
    };
    await log.begin(target.key, state);
    const reason = new CaptureReason(target, state, this.options);
    try {
      await monitors.want(target, 'capture', reason);
    } catch (err) {
      await log.end(target.key);
      throw err;
    }
    const started = { ...state, ...(reason.collector ? { collector: reason.collector } : {}) };
    await log.put(target.key, started);
    return started;
  }

  /** Capture stops wherever its monitor runs: this replica lets go now, another at its next request or watch. */
  async stop(key: string, gridId: string | undefined): Promise<void> {
    await this.options.log.end(key);
    if (gridId) {
      await this.options.monitors.letGo(gridId, 'capture');
    }
  }

  /** The browser ended: its capture ends with it (what it recorded stays listed). */
  async browserEnded(key: string, gridId: string): Promise<void> {
    const state = await this.options.log.state(key);
    if (state?.gridId === gridId) {
      await this.options.log.end(key);
    }
    await this.options.monitors.forget(gridId);
  }

  async list(key: string, gridId: string | undefined, filter: NetworkFilter = {}): Promise<CaptureListing> {
    const [state, listing] = await Promise.all([this.options.log.state(key), this.options.log.list(key)]);
    const capturing = state !== undefined && state.gridId === gridId;
    return {
      capturing,
      match: capturing ? (state.match ?? null) : null,
      requests: listing.entries.filter((entry) => passes(entry, filter)),
      dropped: listing.dropped,
    };
  }

  /** One response body, from the browser's collector (never fetched again: that would replay a POST). */
  async body(
    key: string,
    browser: { gridId: string; bidiAddress: string | undefined },
    id: string,
  ): Promise<CapturedBody> {
    const [state, listing] = await Promise.all([this.options.log.state(key), this.options.log.list(key)]);
    const entry = listing.entries.find((e) => e.id === id);
    if (!entry) {
      throw new NotFound(
        `No captured request has the id "${id.slice(0, 80)}"; list workspace://network (GET /workspace/network, or the network tool) and pass one of its ids.`,
      );
    }
    if (!entry.body) {
      throw new NotFound(
        `Request ${entry.id} has no body to read (${noBodyWhy(entry)}); pick a request whose body is true in the network list.`,
      );
    }
    if (state?.gridId !== browser.gridId || !state.collector || !browser.bidiAddress) {
      throw gone(entry.id);
    }
    const held = this.options.monitors.connection(browser.gridId);
    const connection = held ?? (await this.options.connect(browser.bidiAddress));
    try {
      const { bytes } = networkData.parse(
        await connection.send('network.getData', {
          dataType: 'response',
          request: bidiRequestOf(entry.id),
          collector: state.collector,
        }),
      );
      if (bytes?.type === 'string') {
        return { entry, text: bytes.value };
      }
      return { entry, bytes: Buffer.from(bytes?.value ?? '', 'base64') };
    } catch (err) {
      if (err instanceof BidiCommandError) {
        throw gone(entry.id);
      }
      throw err;
    } finally {
      if (!held) {
        await connection.close();
      }
    }
  }
}

function gone(id: string): NotFound {
  return new NotFound(
    `The body of request ${id} is no longer available (capture was turned off, the browser ended, or it let the body go); turn capture_network on and load the page again.`,
  );
}

function noBodyWhy(entry: NetworkEntry): string {
  if (entry.withheld) {
    return 'it carried a typed secret';
  }
  if (entry.status === null) {
    return 'it failed before any response';
  }
  return `a ${entry.status} response the browser kept no body of`;
}

function passes(entry: NetworkEntry, filter: NetworkFilter): boolean {
  if (filter.match !== undefined && !globMatches(filter.match, entry.url)) {
    return false;
  }
  if (filter.type !== undefined && entry.type !== filter.type) {
    return false;
  }
  const status = filter.status;
  if (status === undefined) {
    return true;
  }
  if (status === 'failed') {
    return entry.status === null;
  }
  if (/^[1-5]xx$/.test(status)) {
    return entry.status !== null && Math.floor(entry.status / 100) === Number(status[0]);
  }
  return entry.status === Number(status);
}

/** A redirect's hops share the browser's request id; the entry id tells them apart with `~<hop>`. */
function entryIdOf(request: string, redirectCount: number): string {
  return redirectCount === 0 ? request : `${request}~${redirectCount}`;
}

function bidiRequestOf(id: string): string {
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

/** network.getData's answer: the body as text, or base64 for bytes that are not. */
const networkData = z.object({ bytes: z.object({ type: z.string(), value: z.string() }).optional() });

const dataCollector = z.object({ collector: z.string().optional() });

interface Pending {
  method: string;
  url: string;
  type: string;
  started: number;
}

const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

class CaptureReason implements Reason {
  readonly events = ['network.beforeRequestSent', 'network.responseCompleted', 'network.fetchError'] as const;
  collector: string | undefined;
  private readonly pending = new Map<string, Pending>();
  private writes: Promise<unknown> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly target: CaptureTarget,
    private readonly state: CaptureState,
    private readonly options: NetworkCaptureOptions,
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

  onLost(): void {
    this.ended = true;
    this.pending.clear();
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
    return request.destination;
  }
  if (request.initiatorType === 'xmlhttprequest') {
    return 'xhr';
  }
  return request.initiatorType === 'fetch' ? 'fetch' : 'other';
}
