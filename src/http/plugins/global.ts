import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify';

/**
 * A plugin whose hooks, decorators and handlers belong to the app it is registered on, not to a
 * child context of its own: what fastify-plugin does, by the property Fastify documents for it.
 * The cross-cutting plugins (errors, auth, caller) use it so every route, prefixed or not, has them.
 */
export function global<Options extends FastifyPluginOptions>(
  plugin: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  Object.defineProperty(plugin, Symbol.for('skip-override'), { value: true });
  return plugin;
}
