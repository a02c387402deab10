import type { FastifyReply, FastifyRequest } from 'fastify';
import { global } from './global.js';

/** Probes and scrapes come every few seconds from machines: a person reading the log wants the rest. */
const MACHINE_ROUTES = new Set(['/health', '/started', '/ready', '/metrics']);

/** One line per request: the route's pattern (never the URL, whose query may carry an id), status and time. */
export const requestLog = global<{ routePrefix?: string }>(async (app, { routePrefix = '' }) => {
  app.addHook('onResponse', async (request, reply) => logRequest(request, reply, routePrefix));
});

function logRequest(request: FastifyRequest, reply: FastifyReply, prefix: string): void {
  const route = request.routeOptions.url ?? '(no route)';
  const line = {
    event: 'request',
    method: request.method,
    route,
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime),
  };
  const machine =
    MACHINE_ROUTES.has(route) || (route.startsWith(prefix) && MACHINE_ROUTES.has(route.slice(prefix.length)));
  // request.log carries the reqId that the request's tool-call line carries too (caller.requestId).
  request.log[machine ? 'debug' : 'info'](line, 'request');
}
