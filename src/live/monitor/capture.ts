import type { BidiEndpoint } from '../../grid/grid.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BadRequest, NotFound } from '../../errors.js';
import { globMatches } from '../../glob.js';
import { BidiCommandError, type BidiConnection } from './bidi.js';
import {
  bidiRequestOf,
  CaptureReason,
  captureStopped,
  type CaptureDeps,
  type CaptureTarget,
} from './capture-reason.js';
import type { CaptureState, NetworkEntry } from './network-log.js';

export interface NetworkCaptureOptions extends CaptureDeps {
  /** opens a short connection, for reading a body on a replica that holds no monitor for the browser */
  connect(address: BidiEndpoint): Promise<BidiConnection>;
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
  /** why capture stopped by itself, until it is turned on again */
  stopped?: string;
}

/** A response body as the browser kept it: text, or bytes it could not answer as text. */
export interface CapturedBody {
  entry: NetworkEntry;
  text?: string;
  bytes?: Buffer;
}

/** network.getData's answer: the body as text, or base64 for bytes that are not. */
const networkData = z.object({ bytes: z.object({ type: z.string(), value: z.string() }).optional() });

const MAX_MATCH_CHARS = 1000;
const BROWSER_ENDED = 'the browser it captured ended';
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

  /** The browser ended: its capture ends with it (what it recorded stays listed, and says why). */
  async browserEnded(key: string, gridId: string): Promise<void> {
    const state = await this.options.log.state(key);
    if (state?.gridId === gridId) {
      await this.options.log.end(key, captureStopped(new Date(), BROWSER_ENDED));
    }
    await this.options.monitors.forget(gridId);
  }

  async list(key: string, gridId: string | undefined, filter: NetworkFilter = {}): Promise<CaptureListing> {
    const [state, listing] = await Promise.all([this.options.log.state(key), this.options.log.list(key)]);
    const capturing = state !== undefined && state.gridId === gridId;
    // A capture whose browser the workspace no longer holds ended with it, wherever it ran.
    const stopped = capturing
      ? undefined
      : (listing.stopped ?? (state === undefined ? undefined : captureStopped(undefined, BROWSER_ENDED)));
    return {
      capturing,
      match: capturing ? (state.match ?? null) : null,
      requests: listing.entries.filter((entry) => passes(entry, filter)),
      dropped: listing.dropped,
      ...(stopped === undefined ? {} : { stopped }),
    };
  }

  /** One response body, from the browser's collector (never fetched again: that would replay a POST). */
  async body(
    key: string,
    browser: { gridId: string; bidiAddress: BidiEndpoint | undefined },
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
