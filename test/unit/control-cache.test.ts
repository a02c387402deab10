import { describe, expect, it } from 'vitest';
import type { Episode } from '../../src/live/control-episode.js';
import type { Controls } from '../../src/live/control.js';
import { ControlCache } from '../../src/live/control-cache.js';

/** The store's episode, counting its reads, and the change events Controls sends. */
function controls(): { fake: Controls; reads: () => number; set(episode: Episode | undefined): void; change(): void } {
  let episode: Episode | undefined;
  let reads = 0;
  const listeners: ((workspace: string) => void)[] = [];
  const fake = {
    episode: async () => {
      reads += 1;
      return episode;
    },
    onChange: (listener: (workspace: string) => void) => listeners.push(listener),
  } as unknown as Controls;
  return {
    fake,
    reads: () => reads,
    set: (next) => (episode = next),
    change: () => listeners.forEach((listener) => listener('w')),
  };
}

const held = (holders: string[], state: Episode['state'] = 'held'): Episode => ({
  state,
  who: 'Kelly',
  since: '2026-12-04T15:12:00.000Z',
  holders,
});

describe('who holds Control, for the tunnels', () => {
  it('reads the store once per interval however much input flows, and at once after a change here', async () => {
    let now = 0;
    const store = controls();
    const cache = new ControlCache(store.fake, 500, () => now);
    store.set(held(['v1']));
    expect(await cache.holds('w', 'v1')).toBe(true);
    for (let i = 0; i < 1000; i++) {
      expect(cache.holds('w', 'v1')).toBe(true);
      expect(cache.holds('w', 'v2')).toBe(false);
    }
    expect(store.reads()).toBe(1);

    // Released through this process: the next input is dropped, without waiting for the interval.
    store.set(undefined);
    store.change();
    expect(await cache.holds('w', 'v1')).toBe(false);
    expect(store.reads()).toBe(2);

    // Taken through another replica: seen once the interval has passed.
    store.set(held(['v1']));
    expect(cache.holds('w', 'v1')).toBe(false);
    now += 500;
    expect(await cache.holds('w', 'v1')).toBe(true);
    expect(store.reads()).toBe(3);
  });

  it('lets input through only once Control is held, not while it is requested', async () => {
    const store = controls();
    const cache = new ControlCache(store.fake, 500, () => 0);
    store.set(held(['v1'], 'requested'));
    expect(await cache.holds('w', 'v1')).toBe(false);
  });
});
