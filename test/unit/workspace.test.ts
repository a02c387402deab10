import { describe, expect, it } from 'vitest';
import { BadRequest } from '../../src/errors.js';
import { resolveCaller, sessionCaller } from '../../src/workspace/caller.js';
import { mcpSessionDigest } from '../../src/workspace/mcp-sessions.js';
import { MemoryRecordStore, newRecord } from '../../src/workspace/records.js';
import { LocalTurns } from '../../src/workspace/turns.js';
import { TimedOut } from '../../src/errors.js';

describe('the caller key', () => {
  it('comes from the header, then the query, then the MCP session, else none', () => {
    expect(sessionCaller(resolveCaller({ header: 'a', query: 'b' }), 'c')).toEqual({ key: 'named:a', workspace: 'a' });
    expect(sessionCaller(resolveCaller({ query: 'b' }), 'c')).toEqual({ key: 'named:b', workspace: 'b' });
    // the id's digest, never the id: a store dump resumes no session
    expect(sessionCaller(resolveCaller({}), 'c')).toEqual({ key: `mcp:${mcpSessionDigest('c')}` });
    expect(resolveCaller({})).toEqual({});
  });

  it.each(['../x', '.', '..', 'a/b', '', '-lead', 'x'.repeat(65), 'sp ace'])(
    'refuses the name %j rather than slugging it',
    (name) => {
      expect(() => resolveCaller({ header: name })).toThrow(BadRequest);
    },
  );

  it('accepts a 64-character name with dots, dashes and underscores', () => {
    const name = `a.b_c-${'x'.repeat(58)}`;
    expect(resolveCaller({ header: name }).workspace).toBe(name);
  });
});

describe('the memory record store', () => {
  it('forgets a record after its TTL, and every write slides it', async () => {
    let now = 0;
    const store = new MemoryRecordStore(10, () => now);
    await store.put('k', newRecord());
    now = 9_000;
    await store.put('k', newRecord());
    now = 18_000;
    expect(await store.get('k')).toBeDefined();
    now = 19_001;
    expect(await store.get('k')).toBeUndefined();
  });

  it('reads many records in the order asked, undefined for one it does not hold', async () => {
    const store = new MemoryRecordStore(10);
    await store.put('a', { ...newRecord(), url: 'https://a.example' });
    await store.put('b', { ...newRecord(), url: 'https://b.example' });
    const found = await store.getMany(['b', 'none', 'a']);
    expect(found.map((r) => r?.url)).toEqual(['https://b.example', undefined, 'https://a.example']);
  });

  it("counts an owner's open browsers from its own records: ended, deleted, expired and others' are not counted", async () => {
    let now = 0;
    const store = new MemoryRecordStore(10, () => now);
    const held = (key: string, owner: string) => store.put(key, { ...newRecord(), gridId: `g-${key}`, owner });
    await Promise.all([
      held('a', 'alice'),
      held('b', 'alice'),
      held('c', 'alice'),
      held('d', 'alice'),
      held('x', 'bob'),
    ]);
    await store.put('z', { ...newRecord(), owner: 'alice' });
    await store.put('b', { ...newRecord(), owner: 'alice' }); // its browser ended
    await store.delete('c');
    await held('d', 'bob'); // opened again by another caller
    expect((await store.heldBy('alice')).map(([key]) => key)).toEqual(['a']);
    expect((await store.heldBy('bob')).map(([key, record]) => [key, record.gridId])).toEqual([
      ['x', 'g-x'],
      ['d', 'g-d'],
    ]);
    now = 10_001;
    expect(await store.heldBy('alice')).toEqual([]);
  });

  it('hands out copies, so a caller cannot change a stored record by accident', async () => {
    const store = new MemoryRecordStore(10);
    await store.put('k', newRecord());
    const record = await store.get('k');
    record!.url = 'https://changed.example';
    expect((await store.get('k'))?.url).toBeUndefined();
  });
});

describe('turns', () => {
  it('run calls on one key one at a time, first come first served, even when one fails', async () => {
    const turns = new LocalTurns();
    const order: string[] = [];
    const step = (name: string, ms: number, fail = false) =>
      turns.run('browser', async () => {
        order.push(`${name}:start`);
        await new Promise((r) => setTimeout(r, ms));
        order.push(`${name}:end`);
        if (fail) {
          throw new Error(name);
        }
      });
    const results = await Promise.allSettled([step('a', 30, true), step('b', 1), step('c', 10)]);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
  });

  it('bound the wait in line with a 504, and never run a call that gave up waiting', async () => {
    const turns = new LocalTurns(20);
    let release = () => {};
    const order: string[] = [];
    const held = turns.run('browser', () => new Promise<void>((r) => (release = r)));
    const gaveUp = await turns
      .run('browser', async () => {
        order.push('ran after giving up');
      })
      .catch((err: unknown) => err);
    expect(gaveUp).toBeInstanceOf(TimedOut);
    expect((gaveUp as TimedOut).message).toContain("for this browser's turn");
    const next = turns.run('browser', async () => {
      order.push('next');
    });
    release();
    await held;
    await next;
    expect(order).toEqual(['next']);
  });

  it('do not make different keys wait for each other', async () => {
    const turns = new LocalTurns();
    const order: string[] = [];
    let release = () => {};
    const held = turns.run('one', () => new Promise<void>((r) => (release = r)));
    await turns.run('two', async () => {
      order.push('two ran while one was held');
    });
    release();
    await held;
    expect(order).toEqual(['two ran while one was held']);
  });
});
