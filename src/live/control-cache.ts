import type { Episode } from './control-episode.js';
import type { Controls } from './control.js';

/**
 * Who holds Control, for the tunnels: asked for every key press and mouse move, so answered
 * from memory. An entry is dropped at once when this process changes the episode, and read
 * again from the store at most every `ttlMs` otherwise, so a change made through another
 * replica reaches this one's tunnels within that time: one store read per workspace per
 * `ttlMs` while input flows, however fast it flows and however many viewers send it.
 */
export class ControlCache {
  private readonly entries = new Map<string, { episode: Episode | undefined; at: number }>();
  private readonly loading = new Map<string, Promise<Episode | undefined>>();
  /** bumped at each change, so a read begun before it is not kept after it */
  private generation = 0;

  constructor(
    private readonly controls: Controls,
    private readonly ttlMs: number = 500,
    private readonly now: () => number = Date.now,
  ) {
    controls.onChange((workspace) => {
      this.generation += 1;
      this.entries.delete(workspace);
      this.loading.delete(workspace);
    });
  }

  /** Whether `viewer` holds Control of the workspace's browser now (held, not merely requested). */
  holds(workspace: string, viewer: string): boolean | Promise<boolean> {
    const entry = this.entries.get(workspace);
    if (entry && this.now() - entry.at < this.ttlMs) {
      return heldBy(entry.episode, viewer);
    }
    return this.load(workspace).then((episode) => heldBy(episode, viewer));
  }

  private load(workspace: string): Promise<Episode | undefined> {
    const pending = this.loading.get(workspace);
    if (pending) {
      return pending;
    }
    const generation = this.generation;
    const loading = this.controls
      .episode(workspace)
      .then((episode) => {
        if (this.generation === generation) {
          this.entries.set(workspace, { episode, at: this.now() });
        }
        return episode;
      })
      .finally(() => {
        if (this.loading.get(workspace) === loading) {
          this.loading.delete(workspace);
        }
      });
    this.loading.set(workspace, loading);
    return loading;
  }
}

function heldBy(episode: Episode | undefined, viewer: string): boolean {
  return episode?.state === 'held' && episode.holders.includes(viewer);
}
