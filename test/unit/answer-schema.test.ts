import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routes, type PlainRoute, type RouteContext } from '../../src/http/routes.js';

const answer = z.object({ name: z.string(), nested: z.object({ count: z.number().int() }) });
const either = z.union([
  z.object({ state: z.literal('held'), who: z.string() }),
  z.object({ state: z.literal('gone') }),
]);

function route(path: string, answers: z.ZodType, value: unknown): PlainRoute {
  return { method: 'GET', path, summary: path, tag: 'admin', access: 'public', answers, handler: async () => value };
}

describe('a JSON route answers what its zod declares', () => {
  it('leaves out a key its declaration does not name, at any depth and in either branch of a union', async () => {
    const app = Fastify();
    void app.register(
      routes([
        route('/one', answer, { name: 'a', token: 'leak', nested: { count: 2, grid_id: 'leak' } }),
        route('/held', either, { state: 'held', who: 'Ann', token: 'leak' }),
        route('/gone', either, { state: 'gone', who: 'leak' }),
      ]),
      {} as RouteContext,
    );
    const body = async (url: string) => (await app.inject({ url })).json<unknown>();
    expect(await body('/one')).toEqual({ name: 'a', nested: { count: 2 } });
    expect(await body('/held')).toEqual({ state: 'held', who: 'Ann' });
    expect(await body('/gone')).toEqual({ state: 'gone' });
    await app.close();
  });

  it('chooses a union branch by shape, never by running a pattern on the value (a page title, a url)', async () => {
    // A backtracking regex: run on 40 a's and a "!" it held the event loop for minutes; on 20 it
    // answers fast, and a pattern-checking serializer finds no branch for the value (a 500).
    const titled = z.union([
      z.object({ title: z.string().regex(/^(a+)+$/), pattern: z.string() }),
      z.object({ gone: z.literal(true) }),
    ]);
    const hostile = `${'a'.repeat(20)}!`;
    const app = Fastify();
    void app.register(routes([route('/page', titled, { title: hostile, pattern: 'kept' })]), {} as RouteContext);
    const reply = await app.inject({ url: '/page' });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ title: hostile, pattern: 'kept' });
    await app.close();
  });
});
