import type { FastifyRequest } from 'fastify';
import { BadRequest } from '../../errors.js';
import { MAX_HISTORY } from '../../events/events.js';
import { serveEvents, type StreamStart } from '../../events/stream.js';
import { queryOf, type PlainRoute } from '../routes.js';
import { ADMIN_API, adminRoute, services } from './routes.js';

const admin = { tag: 'admin', access: 'admin' } as const;
const limit = (what = '') =>
  `optional: at most this many of the newest events${what}: 1–${MAX_HISTORY}, default ${MAX_HISTORY}`;
/** An event id as EventLog stamps it (time, replica, counter, each base 36), with room to spare. */
const EVENT_ID = /^[A-Za-z0-9-]{1,64}$/;

/** ?limit, checked: a number from outside is bounded before use. */
function limitOf(request: FastifyRequest): number {
  const raw = queryOf(request).limit;
  if (raw === undefined) {
    return MAX_HISTORY;
  }
  const limit = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= MAX_HISTORY)) {
    throw new BadRequest(`Send ?limit as a whole number from 1 to ${MAX_HISTORY}, or leave it out for all kept.`);
  }
  return limit;
}

function streamStartOf(request: FastifyRequest): StreamStart {
  const header = request.headers['last-event-id'];
  if (header !== undefined && (typeof header !== 'string' || !EVENT_ID.test(header))) {
    throw new BadRequest('Send Last-Event-ID as the id of an event this stream sent, or leave it out to start afresh.');
  }
  return { lastEventId: header, limit: limitOf(request) };
}

/** The audit events: what is kept, and the live stream (tag admin, admin token like every admin route). */
export const EVENT_ADMIN_ROUTES: readonly PlainRoute[] = [
  {
    ...adminRoute('GET events'),
    summary:
      'The audit events kept (secret binds allowed and refused, flow runs, browsers opened and ended), newest first; never a value, a full URL or a Grid id',
    query: { limit: limit() },
    handler: async (request, _reply, context) => ({ events: await services(context).events.recent(limitOf(request)) }),
  },
  {
    ...admin,
    method: 'GET',
    path: `${ADMIN_API}/events/stream`,
    summary:
      'The audit events as they happen, as server-sent events (each `data:` one event as JSON, `id:` its id): the newest kept first (oldest of them first), then live, with a comment every 15 s; 429 when MAX_STREAMS are open',
    query: { limit: limit(', replayed before the live ones') },
    headers: {
      'Last-Event-ID':
        'the id of the last event seen: the stream replays only what came after it (all that is kept when the history no longer holds it)',
    },
    answers: 'events',
    handler: async (request, reply, context) =>
      serveEvents(services(context).events, reply.raw, streamStartOf(request), () => {
        reply.hijack();
      }),
  },
];
