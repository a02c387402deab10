import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { BadRequest, NotFound } from '../errors.js';
import { checkWorkspaceName } from '../workspace/names.js';
import { MAX_WHO_CHARS, whoProblem } from '../live/control-copy.js';
import type { ControlAsked, ControlLeft, LiveTicket } from '../live/answers.js';
import type { LiveService } from '../live/service.js';
import { controlRefusal, type ControlAsker } from '../live/control-policy.js';
import { adminRoute } from './admin/routes.js';
import { pathParams, type PlainRoute, type RouteContext } from './routes.js';

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

/** What the admin API knows of who asks for Control: whether its credential is a person's (auth.ts). */
function adminAsker(request: FastifyRequest): ControlAsker {
  return { via: 'admin', person: request.adminIsPerson === true };
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
    ...adminRoute('GET workspaces/{workspace}/live'),
    summary: "Whether a workspace's browser can be watched, and why not (the Grid has no VNC, no browser)",
    handler: async (request, _reply, context) => {
      const live = liveOf(context);
      const refused = controlRefusal(live.controlBy, adminAsker(request));
      const status = await live.status(workspaceOfPath(pathParams(request)));
      return { ...status, ...(refused ? { control_refused: refused } : {}) };
    },
  },
  {
    ...adminRoute('POST workspaces/{workspace}/live-ticket'),
    summary: 'A single-use ticket (30 s) for the live view websocket /admin/live/{workspace}?ticket=…; body {who}',
    handler: async (request, _reply, context): Promise<LiveTicket> => {
      const workspace = workspaceOfPath(pathParams(request));
      const { who } = viewerOf(request.body);
      return liveOf(context).ticket(workspace, who, adminAsker(request));
    },
  },
  {
    ...adminRoute('POST workspaces/{workspace}/control'),
    summary:
      "A person takes Control of the workspace's browser: held at once when no call runs, else requested until the running call ends; body {who, viewer}",
    handler: async (request, _reply, context): Promise<ControlAsked> => {
      const workspace = workspaceOfPath(pathParams(request));
      const { who, viewer } = viewerOf(request.body);
      return liveOf(context).take(workspace, who, viewer, adminAsker(request));
    },
  },
  {
    ...adminRoute('DELETE workspaces/{workspace}/control'),
    summary:
      'The person hands the browser back (only they can); with a viewer, only that viewer lets go (it stays held while another of theirs holds it); body {who, viewer}',
    handler: async (request, _reply, context): Promise<ControlLeft> => {
      const workspace = workspaceOfPath(pathParams(request));
      const { who, viewer } = viewerOf(request.body);
      return liveOf(context).handBack(workspace, who, viewer, adminAsker(request));
    },
  },
];
