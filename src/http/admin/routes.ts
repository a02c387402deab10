import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AdminServices } from '../../admin/services.js';
import { pathParams, type PlainRoute, type RouteContext } from '../routes.js';
import * as schema from './schemas.js';

/** An answer's JSON Schema for the OpenAPI document, rendered from its one zod declaration. */
export function answerOf(shape: z.ZodType): { json: Record<string, unknown> } {
  const { $schema: _dialect, ...json } = z.toJSONSchema(shape, {
    io: 'output',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  });
  return { json };
}

const admin = { tag: 'admin', access: 'admin' } as const;
export const ADMIN_API = '/admin/api';
export const WORKSPACE_PATH = `${ADMIN_API}/workspaces/{workspace}`;

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
    ...admin,
    method: 'GET',
    path: `${ADMIN_API}/workspaces`,
    summary:
      'Every workspace with a record or a library directory: browser state, last page, counts, last activity (one unreadable row is listed with its problem)',
    answers: answerOf(schema.workspaceList),
    handler: async (_request, _reply, context) => services(context).overview.list(),
  },
  {
    ...admin,
    method: 'GET',
    path: WORKSPACE_PATH,
    summary: 'One workspace: its row, its browser (with the Grid id and node, for the operator only) and its files',
    answers: answerOf(schema.workspaceDetail),
    handler: async (request, _reply, context) => services(context).overview.detail(param(request, 'workspace')),
  },
  {
    ...admin,
    method: 'DELETE',
    path: `${WORKSPACE_PATH}/browser`,
    summary: "End a workspace's browser (the workspace keeps its files and flows)",
    answers: answerOf(schema.browserEnded),
    handler: async (request, _reply, context) => services(context).endBrowser(param(request, 'workspace')),
  },
];
