import { describe, expect, it } from 'vitest';
import { MemoryLiveStore } from '../../src/live/live-store.js';
import { Tickets } from '../../src/live/tickets.js';

describe('live-view tickets', () => {
  it('open once, then never again', async () => {
    const tickets = new Tickets(new MemoryLiveStore());
    const { ticket } = await tickets.mint({ workspace: 'w1', who: 'Kelly', viewer: 'v1' });
    expect(await tickets.take(ticket)).toEqual({ workspace: 'w1', who: 'Kelly', viewer: 'v1' });
    expect(await tickets.take(ticket)).toBeUndefined();
  });

  it('expire after their 30 s', async () => {
    let now = 1_000_000;
    const tickets = new Tickets(new MemoryLiveStore(() => now));
    const { ticket, expires_in_seconds } = await tickets.mint({ workspace: 'w1', who: 'a person', viewer: 'v1' });
    expect(expires_in_seconds).toBe(30);
    now += 30_001;
    expect(await tickets.take(ticket)).toBeUndefined();
  });

  it('refuse anything that is not a ticket’s shape without asking the store', async () => {
    const tickets = new Tickets(new MemoryLiveStore());
    expect(await tickets.take('')).toBeUndefined();
    expect(await tickets.take('../../etc')).toBeUndefined();
  });
});

describe('live-view tickets under attack', () => {
  it('minted and never used, do not outlive their 30 s in memory', async () => {
    let now = 1_000_000;
    const store = new MemoryLiveStore(() => now);
    const tickets = new Tickets(store);
    // A bearer caller whose browser is watchable may mint one per call, and use none.
    for (let i = 0; i < 1000; i++) {
      await tickets.mint({ workspace: 'w1', who: 'the person at the MCP client', viewer: `v${i}` });
    }
    now += 60_000;
    await tickets.mint({ workspace: 'w1', who: 'a person', viewer: 'last' });
    expect(store.size).toBe(1);
  });
});
