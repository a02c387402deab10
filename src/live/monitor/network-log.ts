/**
 * A captured request's type: the Fetch standard's destination where the browser names one, else
 * who sent it. Closed, so a filter on a type no request can have is refused, not answered empty.
 */
export const REQUEST_TYPES = [
  'document',
  'iframe',
  'frame',
  'script',
  'style',
  'image',
  'font',
  'audio',
  'video',
  'track',
  'object',
  'embed',
  'manifest',
  'json',
  'report',
  'worker',
  'sharedworker',
  'serviceworker',
  'audioworklet',
  'paintworklet',
  'webidentity',
  'xslt',
  'xhr',
  'fetch',
  'other',
] as const;

export function isRequestType(type: string): boolean {
  return REQUEST_TYPES.some((known) => known === type);
}

/** One request a captured page made, as every surface lists it. */
export interface NetworkEntry {
  /** the id network_body takes */
  id: string;
  method: string;
  /** only the origin when it carried a typed secret (then `withheld`) */
  url: string;
  /** null for a request that failed before any response */
  status: number | null;
  /** one of REQUEST_TYPES */
  type: string;
  mime_type: string | null;
  /** from the request leaving to its response ending (or failing), in ms */
  duration_ms: number | null;
  /** the response body's size in bytes, as the browser decoded it */
  size: number | null;
  /** whether network_body can answer this response's body */
  body: boolean;
  /** why it failed (the browser's net::ERR_… reason) */
  failed?: string;
  withheld?: true;
}

/** A workspace's capture as every replica sees it: which browser, what it keeps, its data collector. */
export interface CaptureState {
  /** this capture, so a replica's monitor knows when capture moved on (off, or on again elsewhere) */
  id: string;
  gridId: string;
  match?: string;
  /** ISO 8601 */
  since: string;
  /** the browser-side collector the bodies are kept by; absent when the browser keeps none */
  collector?: string;
}

export interface NetworkListing {
  entries: NetworkEntry[];
  /** entries dropped to keep at most the limit (oldest first), since capture began */
  dropped: number;
  /** why capture stopped by itself (its browser's monitor ended), until it begins again */
  stopped?: string;
}

/**
 * What a workspace's capture recorded, shared by replicas: the monitor runs on the replica
 * that opened it, and any replica lists it and reads its bodies. Bounded: the newest `limit`
 * entries, each of bounded size, for as long as a workspace record lives.
 */
export interface NetworkLog {
  /** a fresh capture: the previous entries and dropped count go */
  begin(key: string, state: CaptureState): Promise<void>;
  /** the state of the capture begun, completed (its collector) */
  put(key: string, state: CaptureState): Promise<void>;
  state(key: string): Promise<CaptureState | undefined>;
  /** capture stops; what it recorded stays listed, with `stopped` when it stopped by itself */
  end(key: string, stopped?: string): Promise<void>;
  /** keeps the entry if capture `id` is still the workspace's; false (nothing kept) when it is not */
  append(key: string, id: string, entry: NetworkEntry): Promise<boolean>;
  list(key: string): Promise<NetworkListing>;
}

interface Kept {
  state?: CaptureState;
  entries: NetworkEntry[];
  dropped: number;
  stopped?: string;
  expiresAt: number;
}

export class MemoryNetworkLog implements NetworkLog {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly limit: number,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async begin(key: string, state: CaptureState): Promise<void> {
    this.kept.set(key, { state: { ...state }, entries: [], dropped: 0, expiresAt: this.expiry() });
  }

  async put(key: string, state: CaptureState): Promise<void> {
    const kept = this.live(key);
    if (kept) {
      kept.state = { ...state };
    }
  }

  async state(key: string): Promise<CaptureState | undefined> {
    const state = this.live(key)?.state;
    return state && { ...state };
  }

  async end(key: string, stopped?: string): Promise<void> {
    const kept = this.live(key);
    if (kept) {
      delete kept.state;
      if (stopped !== undefined) {
        kept.stopped = stopped;
      }
    }
  }

  async append(key: string, id: string, entry: NetworkEntry): Promise<boolean> {
    const kept = this.live(key);
    if (kept?.state?.id !== id) {
      return false;
    }
    kept.entries.push({ ...entry });
    const over = kept.entries.length - this.limit;
    if (over > 0) {
      kept.entries.splice(0, over);
      kept.dropped += over;
    }
    kept.expiresAt = this.expiry();
    return true;
  }

  async list(key: string): Promise<NetworkListing> {
    const kept = this.live(key);
    return {
      entries: kept ? kept.entries.map((e) => ({ ...e })) : [],
      dropped: kept?.dropped ?? 0,
      ...(kept?.stopped === undefined ? {} : { stopped: kept.stopped }),
    };
  }

  private live(key: string): Kept | undefined {
    const kept = this.kept.get(key);
    if (kept && kept.expiresAt <= this.now()) {
      this.kept.delete(key);
      return undefined;
    }
    return kept;
  }

  private expiry(): number {
    return this.now() + this.ttlSeconds * 1000;
  }
}
