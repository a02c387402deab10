import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import type { FlowsService } from '../flows/view.js';
import type { Caller } from '../workspace/caller.js';
import { affects } from './flow-tools.js';

/** How many libraries' last change a bus remembers (for a stream that reconnects); older ones count as "maybe". */
const REMEMBERED_LIBRARIES = 10_000;

/**
 * The change streams of HTTP, each tied to the caller that opened it: 2026-07-28's
 * `subscriptions/listen` and 2025-11-25's GET /mcp event stream (legacy-stream.ts). A flow saved
 * in one workspace tells that workspace's streams (and, for the shared library, everyone's),
 * never a neighbour's. The SDK subscribes a listen stream while it serves the listen request,
 * inside the request's `asCaller`.
 */
export class WorkspaceEventBus implements ServerEventBus {
  private readonly streams = new Map<(event: ServerEvent) => void, Caller | undefined>();
  private readonly current = new AsyncLocalStorage<Caller>();
  /** this bus's life: a mark from another process (or an earlier one) says nothing about this one's changes */
  private readonly life = randomBytes(6).toString('base64url');
  private sequence = 0;
  private readonly lastChange = new Map<string, number>();
  /** the newest change forgotten to keep lastChange bounded */
  private forgotten = 0;

  /** Runs one HTTP exchange as `caller`, so a stream it opens is filed under it. */
  asCaller<T>(caller: Caller, serve: () => T): T {
    return this.current.run(caller, serve);
  }

  /** Tells the streams of every caller a change to `library` concerns that their flow tools changed. */
  follow(flows: FlowsService | undefined): void {
    flows?.onChange((library) => {
      this.remember(library);
      for (const [listener, caller] of this.streams) {
        if (affects(caller, library)) {
          deliver(listener, { kind: 'tools_list_changed' });
        }
      }
    });
  }

  /** Where the changes stand now, as an opaque mark a reconnecting stream hands back (its Last-Event-ID). */
  mark(): string {
    return `${this.life}.${this.sequence}`;
  }

  /**
   * Whether `caller`'s flow tools may have changed since `mark`: a mark of another process, or
   * older than what this bus still remembers, says yes, since a missed change is a stale list.
   */
  changedSince(caller: Caller, mark: string): boolean {
    const [life, at] = mark.split('.');
    const since = Number(at);
    if (life !== this.life || !Number.isSafeInteger(since) || since < this.forgotten) {
      return true;
    }
    const libraries = caller.workspace === undefined ? [GLOBAL_LIBRARY] : [GLOBAL_LIBRARY, caller.workspace];
    return libraries.some((library) => (this.lastChange.get(library) ?? 0) > since);
  }

  publish(event: ServerEvent): void {
    for (const listener of this.streams.keys()) {
      deliver(listener, event);
    }
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.streams.set(listener, this.current.getStore());
    return () => this.streams.delete(listener);
  }

  private remember(library: string): void {
    this.sequence += 1;
    this.lastChange.delete(library);
    this.lastChange.set(library, this.sequence);
    if (this.lastChange.size > REMEMBERED_LIBRARIES) {
      const [oldest, seq] = this.lastChange.entries().next().value as [string, number];
      this.lastChange.delete(oldest);
      this.forgotten = seq;
    }
  }
}

/** One stream that fails (its client went away mid-write) must not keep the others from hearing. */
function deliver(listener: (event: ServerEvent) => void, event: ServerEvent): void {
  try {
    listener(event);
  } catch {
    // the SDK closes that stream itself
  }
}
