import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequest } from '../../errors.js';
import type { AdminServices } from '../../admin/services.js';
import { pathParams, type PlainRoute, type RouteContext } from '../routes.js';
import { ADMIN_API_MAP, type AdminRoute } from './api-map.js';
import * as schema from './schemas.js';

/**
 * A polled answer with an ETag of its content: a poller that sends it back as If-None-Match
 * gets 304 and no body while nothing changed. Never stored by a browser cache (no-store): it is
 * the operator's view, and the page keeps the last answer itself.
 */
function unlessUnchanged(request: FastifyRequest, reply: FastifyReply, answer: unknown): unknown {
  const etag = `"${createHash('sha256').update(JSON.stringify(answer)).digest('base64url').slice(0, 32)}"`;
  void reply.header('etag', etag).header('cache-control', 'no-store');
  if (request.headers['if-none-match'] === etag) {
    return reply.code(304).send();
  }
  return answer;
}
export const ADMIN_API = '/admin/api';

const METHODS = ['GET', 'PUT', 'DELETE', 'POST'] as const satisfies readonly PlainRoute['method'][];
const isMethod = (word: string): word is PlainRoute['method'] => METHODS.some((method) => method === word);

/**
 * A JSON route's method, path and schemas, taken from the route map the page compiles against:
 * written there once, a row cannot serve or document another path or answer than the page expects.
 */
export function adminRoute(
  route: AdminRoute,
): Pick<PlainRoute, 'tag' | 'access' | 'method' | 'path' | 'answers' | 'body'> {
  const [method = '', path = ''] = route.split(' ');
  if (!isMethod(method)) {
    throw new Error(`The admin route map names ${JSON.stringify(route)}, whose method no route can have.`);
  }
  const entry = ADMIN_API_MAP[route];
  return {
    tag: 'admin',
    access: 'admin',
    method,
    path: `${ADMIN_API}/${path}`,
    answers: entry.answer,
    ...('body' in entry ? { body: entry.body } : {}),
  };
}

export const param = (request: FastifyRequest, key: string) => pathParams(request)[key] ?? '';

/** The admin services, which the server always lends; a route table rendered without them (docs) never runs one. */
export function services(context: RouteContext): AdminServices {
  if (!context.admin) {
    throw new Error('The admin API was registered without its services.');
  }
  return context.admin;
}

/** The operator's view of workspaces: the listing, one workspace, and ending its browser. */
export const WORKSPACE_ADMIN_ROUTES: readonly PlainRoute[] = [
  {
    ...adminRoute('GET workspaces'),
    summary:
      'Every workspace with a record or a library directory: browser state, last page, counts, last activity (one unreadable row is listed with its problem)',
    headers: { 'If-None-Match': 'the ETag of your last read: an unchanged listing answers 304 with no body' },
    handler: async (request, reply, context) =>
      unlessUnchanged(request, reply, await services(context).overview.list()),
  },
  {
    ...adminRoute('GET workspaces/{workspace}'),
    summary: 'One workspace: its row, its browser (with the Grid id and node, for the operator only) and its files',
    handler: async (request, _reply, context) => services(context).overview.detail(param(request, 'workspace')),
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}'),
    summary:
      'Delete a workspace: its browser ends, its record goes (on every replica), its flows and files leave the disk; answers what was lost (`global` cannot be deleted)',
    handler: async (request, _reply, context) => services(context).deleteWorkspace(param(request, 'workspace')),
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}/browser'),
    summary: "End a workspace's browser (the workspace keeps its files and flows)",
    handler: async (request, _reply, context) => services(context).endBrowser(param(request, 'workspace')),
  },
];

const ifMatchOf = (request: FastifyRequest) => request.headers['if-match']?.replace(/^W\/|^"|"$/g, '');

/**
 * Any workspace's flows and `global`'s, which only this door writes. A path addresses one
 * library exactly: a global flow listed in a workspace's tab is read and written at
 * /admin/api/workspaces/global/flows/<flow>.
 */
export const FLOW_ADMIN_ROUTES: readonly PlainRoute[] = [
  {
    ...adminRoute('GET workspaces/{workspace}/flows'),
    summary: "A workspace's own flows, then the global ones (`global` lists the shared library alone)",
    handler: async (request, _reply, context) => services(context).flows.list(param(request, 'workspace')),
  },
  {
    ...adminRoute('GET workspaces/{workspace}/flows/{flow}'),
    summary: 'One flow: the YAML as stored, the parsed document, its outline, and its revision (also the ETag)',
    handler: async (request, reply, context) => {
      const flow = await services(context).flows.get(param(request, 'workspace'), param(request, 'flow'));
      void reply.header('etag', `"${flow.revision}"`);
      return flow;
    },
  },
  {
    ...adminRoute('PUT workspaces/{workspace}/flows/{flow}'),
    summary:
      'Save a flow as written (comments kept); a stale If-Match is a 409, a refused document names its line (error.line)',
    body: 'yaml',
    headers: { 'If-Match': 'the revision you read (GET answers it as ETag); a stale one is a 409 and writes nothing' },
    handler: async (request, _reply, context) =>
      services(context).flows.save(
        param(request, 'workspace'),
        param(request, 'flow'),
        request.body,
        ifMatchOf(request),
      ),
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}/flows/{flow}'),
    summary: 'Delete a flow',
    headers: { 'If-Match': 'optional: delete only at this revision (else 409)' },
    handler: async (request, _reply, context) =>
      services(context).flows.delete(param(request, 'workspace'), param(request, 'flow'), ifMatchOf(request)),
  },
  {
    ...adminRoute('POST workspaces/{workspace}/flows/{flow}/move'),
    summary: 'Move a flow to global or to another workspace (written there first, then removed here)',
    handler: async (request, _reply, context) => {
      const parsed = schema.flowMoveRequest.safeParse(request.body);
      if (!parsed.success) {
        throw new BadRequest('Send {"to": "global"} or {"to": "<workspace>"} as JSON.');
      }
      return services(context).flows.move(param(request, 'workspace'), param(request, 'flow'), parsed.data.to);
    },
  },
];

/** The catalogue with the stored flows that type each secret, and the Grid. */
export const CATALOGUE_ADMIN_ROUTES: readonly PlainRoute[] = [
  {
    ...adminRoute('GET secrets'),
    summary:
      'The secrets catalogue as cards (never a value), each with the stored flows and steps that type it, and names flows type that no secret defines',
    handler: async (_request, _reply, context) => services(context).secrets.answer(),
  },
  {
    ...adminRoute('GET grid'),
    summary: "The Grid's nodes, slots and sessions (each with the workspace that holds it), and the browsers it offers",
    handler: async (_request, _reply, context) => services(context).overview.grid(),
  },
];
