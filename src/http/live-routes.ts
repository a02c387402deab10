import { z } from 'zod';
import { BadRequest, NotFound } from '../errors.js';
import { workspaceName, WORKSPACE_NAME_RULE } from '../workspace/names.js';
import type { LiveService } from '../live/service.js';
import { pathParams, type PlainRoute, type RouteContext } from './routes.js';

const admin = { tag: 'admin', access: 'admin' } as const;

/** Who asks, as the admin page names its person; unsaid is "a person" (seed 004). */
export const viewerBody = z
  .object({ who: z.string().trim().min(1).max(64).optional() })
  .strict()
  .optional();

export function liveOf(context: RouteContext): LiveService {
  if (!context.live) {
    throw new NotFound('This server has no live view (it was built without one); use selenium-flow serve.');
  }
  return context.live;
}

export function workspaceOfPath(params: Record<string, string>): string {
  const parsed = workspaceName.safeParse(params.workspace);
  if (!parsed.success) {
    throw new BadRequest(`Invalid workspace name: ${WORKSPACE_NAME_RULE}; fix the path and call again.`);
  }
  return parsed.data;
}

export function whoOf(body: unknown): string {
  const parsed = viewerBody.safeParse(body ?? undefined);
  if (!parsed.success) {
    throw new BadRequest('The body may hold only {"who": "<name, 1-64 characters>"}; fix it and call again.');
  }
  return parsed.data?.who ?? 'a person';
}

const STATUS = {
  type: 'object',
  properties: {
    browser: { type: 'boolean' },
    watchable: { type: 'boolean' },
    gridLiveView: { type: 'boolean' },
    message: { type: 'string' },
  },
  required: ['browser', 'watchable', 'gridLiveView'],
};

/** The live view's admin routes; its websocket is the upgrade in live-tunnel.ts. */
export const LIVE_ROUTES: readonly PlainRoute[] = [
  {
    ...admin,
    method: 'GET',
    path: '/admin/api/workspaces/{workspace}/live',
    summary: "Whether a workspace's browser can be watched, and why not (the Grid has no VNC, no browser)",
    answers: { json: STATUS },
    handler: async (request, _reply, context) => liveOf(context).status(workspaceOfPath(pathParams(request))),
  },
  {
    ...admin,
    method: 'POST',
    path: '/admin/api/workspaces/{workspace}/live-ticket',
    summary: 'A single-use ticket (30 s) for the live view websocket /admin/live/{workspace}?ticket=…; body {who}',
    answers: {
      json: {
        type: 'object',
        properties: { ticket: { type: 'string' }, expiresInSeconds: { type: 'integer' }, path: { type: 'string' } },
        required: ['ticket', 'expiresInSeconds', 'path'],
      },
    },
    handler: async (request, _reply, context) => {
      const workspace = workspaceOfPath(pathParams(request));
      const live = liveOf(context);
      // Refused now, with the reason, rather than at the upgrade where a browser shows only "failed".
      await live.vncOf(workspace);
      const minted = await live.tickets.mint({ workspace, who: whoOf(request.body) });
      return { ...minted, path: `/admin/live/${workspace}?ticket=${minted.ticket}` };
    },
  },
];
