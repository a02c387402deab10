import { describe, expect, it } from 'vitest';
import { poll } from '../../src/poll.js';

describe('poll', () => {
  it('answers the first value an attempt gives, trying again until then', async () => {
    let tries = 0;
    expect(await poll(async () => (++tries === 3 ? 'found' : undefined), 5_000, 1)).toBe('found');
    expect(tries).toBe(3);
  });

  it('tries once even with no time, and answers undefined when time runs out', async () => {
    let tries = 0;
    expect(await poll(async () => void tries++, 0, 1)).toBeUndefined();
    expect(tries).toBe(1);
    const started = Date.now();
    expect(await poll(async () => undefined, 50, 10)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('ends with the error an attempt throws', async () => {
    await expect(poll(() => Promise.reject(new Error('exited')), 5_000, 1)).rejects.toThrow('exited');
  });
});
