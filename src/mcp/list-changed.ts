import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FlowsService } from '../flows/view.js';
import type { Caller } from '../workspace/caller.js';
import { affects } from './flow-tools.js';

/**
 * The listen streams (`subscriptions/listen`, 2026-07-28) of stateless HTTP, each tied to the
 * caller that opened it: a flow saved in one workspace tells that workspace's streams (and, for
 * the shared library, everyone's), never a neighbour's. The SDK subscribes a stream while it
 * serves the listen request, inside the request's `asCaller`.
 */
export class WorkspaceEventBus implements ServerEventBus {
  private readonly streams = new Map<(event: ServerEvent) => void, Caller | undefined>();
  private readonly current = new AsyncLocalStorage<Caller>();

  /** Runs one HTTP exchange as `caller`, so a stream it opens is filed under it. */
  asCaller<T>(caller: Caller, serve: () => T): T {
    return this.current.run(caller, serve);
  }

  /** Tells the streams of every caller a change to `library` concerns that their flow tools changed. */
  follow(flows: FlowsService | undefined): void {
    flows?.onChange((library) => {
      for (const [listener, caller] of this.streams) {
        if (affects(caller, library)) {
          deliver(listener, { kind: 'tools_list_changed' });
        }
      }
    });
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
}

/** One stream that fails (its client went away mid-write) must not keep the others from hearing. */
function deliver(listener: (event: ServerEvent) => void, event: ServerEvent): void {
  try {
    listener(event);
  } catch {
    // the SDK closes that stream itself
  }
}
