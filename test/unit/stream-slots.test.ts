import { describe, expect, it } from 'vitest';
import { TooManyRequests } from '../../src/errors.js';
import { StreamSlots } from '../../src/mcp/stream-slots.js';

const caller = (token: string, workspace: string) => ({ owner: token, key: `named:${workspace}`, workspace });

describe('notification stream places', () => {
  it('refuses past each limit with the one it reached, and gives a place back once', () => {
    const slots = new StreamSlots({ perCaller: 2, perToken: 3, max: 4 });
    const releases = [slots.take(caller('a', 'one')), slots.take(caller('a', 'one'))];
    expect(() => slots.take(caller('a', 'one'))).toThrow(/This caller already holds 2 .*close one/);
    releases.push(slots.take(caller('a', 'two')));
    expect(() => slots.take(caller('a', 'three'))).toThrow(/This token already holds 3 .*STREAMS_PER_TOKEN/);
    releases.push(slots.take(caller('b', 'one')));
    const full = (() => {
      try {
        slots.take(caller('c', 'one'));
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(full).toBeInstanceOf(TooManyRequests);
    expect(String(full)).toMatch(/already holds 4 notification streams, its most; retry in a minute/);
    // Released twice, a place is given back once: token a holds 2 now, so one more, not two.
    releases[0]?.();
    releases[0]?.();
    slots.take(caller('a', 'three'));
    expect(() => slots.take(caller('c', 'one'))).toThrow(/its most/);
  });
});
