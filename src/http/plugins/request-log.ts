import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { global } from './global.js';

/** Probes and scrapes come every few seconds from machines: a person reading the log wants the rest. */
const MACHINE_ROUTES = new Set(['/health', '/started', '/ready', '/metrics']);

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * An id a proxy or client sends that the log may carry: short, and letters, digits and `. _ : -`
 * (a UUID, a W3C trace id, a load balancer's id). Anything else could put a URL, a token or a
 * forged line into the log, and is replaced rather than cleaned.
 */
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's genReqId: the request's X-Request-Id when it is plain, else a random UUID. Not
 * Fastify's `requestIdHeader`, which takes the header as it comes; and random, not Fastify's
 * counter, which restarts with the process and repeats across replicas.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && PLAIN_ID.test(given) ? given : randomUUID();
}

/**
 * Every answer names its request's id in X-Request-Id, and every line logged for the request
 * carries it as `reqId` (Fastify's child logger): a caller quoting the header finds its lines.
 * One line per request: the route's pattern (never the URL, whose query may carry an id), status and time.
 */
export const requestLog = global<{ routePrefix?: string }>(async (app, { routePrefix = '' }) => {
  app.addHook('onRequest', async (request, reply) => returnRequestId(request, reply));
  app.addHook('onResponse', async (request, reply) => logRequest(request, reply, routePrefix));
});

/**
 * On the raw response: /mcp hijacks its reply, which then sends no header set through Fastify.
 * Also called for the router's own refusals, which no hook sees (plugins/errors.ts).
 */
export function returnRequestId(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
}

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
