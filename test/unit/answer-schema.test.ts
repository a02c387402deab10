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
});
