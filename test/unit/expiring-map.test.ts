import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../../src/expiring-map.js';

describe('ExpiringMap (the memory stores)', () => {
  it('forgets an entry past its TTL, read or not', () => {
    let now = 1_000_000;
    const map = new ExpiringMap<string>(() => now);
    map.set('read-later', 'a', 5_000);
    for (let i = 0; i < 1_000; i++) {
      map.set(`never-read-${i}`, 'x', 5_000);
    }
    map.set('lives-long', 'b', 3_600_000);
    now += 6_000;
    expect(map.get('read-later')).toBeUndefined();
    expect(map.keys()).toEqual(['lives-long']);
    // Not read again, the others wait for the next write past the sweep interval.
    expect(map.size).toBe(1_001);
    now += 10_000;
    map.set('new', 'c', 5_000);
    expect(map.size).toBe(2);
    expect(map.get('lives-long')).toBe('b');
  });
});
