import { z } from 'zod';
import { BadRequest, NotFound } from '../errors.js';
import { checkWorkspaceName } from '../workspace/names.js';
import { copy, MAX_WHO_CHARS, said, whoProblem } from '../live/control-copy.js';
import { viewerId } from '../live/tickets.js';
import {
  controlAsked,
  controlLeft,
  liveStatus,
  liveTicket,
  type ControlAsked,
  type ControlLeft,
  type LiveTicket,
} from '../live/answers.js';
import type { LiveService } from '../live/service.js';
import { pathParams, type PlainRoute, type RouteContext } from './routes.js';

const admin = { tag: 'admin', access: 'admin' } as const;

/** Who asks, as the admin page names its person (unsaid is "a person"), and from which viewer. */
export const viewerBody = z
  .object({
    who: z
      .string()
      .trim()
      .min(1)
      .max(MAX_WHO_CHARS)
      .superRefine((who, ctx) => {
        const problem = whoProblem(who);
        if (problem) {
          ctx.addIssue({ code: 'custom', message: problem });
        }
      })
      .optional(),
    viewer: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16}$/)
      .optional(),
  })
  .strict()
  .optional();

export function liveOf(context: RouteContext): LiveService {
  if (!context.live) {
    throw new NotFound('This server has no live view (it was built without one); use selenium-flow serve.');
  }
  return context.live;
}

export function workspaceOfPath(params: Record<string, string>): string {
  return checkWorkspaceName(params.workspace ?? '', 'fix the path and call again');
}

export function viewerOf(body: unknown): { who: string; viewer: string } {
  const parsed = viewerBody.safeParse(body ?? undefined);
  if (!parsed.success) {
    const who = typeof body === 'object' && body !== null && 'who' in body ? body.who : undefined;
    const whose = typeof who === 'string' ? whoProblem(who.trim()) : undefined;
    throw new BadRequest(
      whose ??
        `The body may hold only {"who": "<name, 1-${MAX_WHO_CHARS} characters>", "viewer": "<the id its ticket answered>"}; fix it and call again.`,
    );
  }
  return { who: parsed.data?.who ?? 'a person', viewer: parsed.data?.viewer ?? 'api' };
}

/** The live view's admin routes; its websocket is the upgrade in live-tunnel.ts. */
export const LIVE_ROUTES: readonly PlainRoute[] = [
  {
    ...admin,
    method: 'GET',
    path: '/admin/api/workspaces/{workspace}/live',
    summary: "Whether a workspace's browser can be watched, and why not (the Grid has no VNC, no browser)",
    answers: liveStatus,
    handler: async (request, _reply, context) => liveOf(context).status(workspaceOfPath(pathParams(request))),
  },
  {
    ...admin,
    method: 'POST',
    path: '/admin/api/workspaces/{workspace}/live-ticket',
    summary: 'A single-use ticket (30 s) for the live view websocket /admin/live/{workspace}?ticket=…; body {who}',
    answers: liveTicket,
    handler: async (request, _reply, context): Promise<LiveTicket> => {
      const workspace = workspaceOfPath(pathParams(request));
      const { who } = viewerOf(request.body);
      const live = liveOf(context);
      // Refused now, with the reason, rather than at the upgrade where a browser shows only "failed".
      const { window } = await live.vncOf(workspace);
      const viewer = viewerId();
      const minted = await live.tickets.mint({ workspace, who, viewer });
      return { ...minted, viewer, path: `/admin/live/${workspace}?ticket=${minted.ticket}`, window };
    },
  },
  {
    ...admin,
    method: 'POST',
    path: '/admin/api/workspaces/{workspace}/control',
    summary:
      "A person takes Control of the workspace's browser: held at once when no call runs, else requested until the running call ends; body {who, viewer}",
    answers: controlAsked,
    handler: async (request, _reply, context): Promise<ControlAsked> => {
      const workspace = workspaceOfPath(pathParams(request));
      const { who, viewer } = viewerOf(request.body);
      const controls = liveOf(context).controls;
      const episode = await controls.ask(workspace, who, viewer);
      const since = episode.granted ?? episode.since;
      return {
        state: episode.state,
        who: said(episode.who),
        since,
        hint: episode.state === 'held' ? copy.held(episode.who, since) : copy.viewerWaiting,
      };
    },
  },
  {
    ...admin,
    method: 'DELETE',
    path: '/admin/api/workspaces/{workspace}/control',
    summary:
      'The person hands the browser back (only they can); with a viewer, only that viewer lets go (it stays held while another of theirs holds it); body {who, viewer}',
    answers: controlLeft,
    handler: async (request, _reply, context): Promise<ControlLeft> => {
      const workspace = workspaceOfPath(pathParams(request));
      const { who, viewer } = viewerOf(request.body);
      const controls = liveOf(context).controls;
      await controls.withdraw(workspace, who, viewer);
      // Another of the person's viewers may still hold it: the answer says which it is now.
      const left = await controls.episode(workspace);
      return left
        ? { state: left.state, who: said(left.who), since: left.granted ?? left.since }
        : { state: 'handed_back' };
    },
  },
];
