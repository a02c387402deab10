import { z } from 'zod';
import { BROWSER_KINDS, type BrowserKind } from '../grid/capabilities.js';
import type { Caller } from './caller.js';
import type { Workspaces } from './workspaces.js';

/** What workspace-level tools may do, and nothing more: handlers see a narrow context. */
export interface WorkspaceView {
  open(
    kind: BrowserKind | undefined,
    window: { width?: number; height?: number },
  ): Promise<{ sessionId?: string; browser: BrowserKind; version: string }>;
  end(): Promise<{ ended: boolean }>;
  describe(): Promise<CurrentWorkspace>;
}

/** current_workspace's answer (and workspace://current's), declared once for the row and the service. */
export const currentWorkspaceAnswer = z.object({
  workspace: z.string().nullable(),
  mode: z.enum(['saved', 'stateless']),
  browser: z
    .object({
      session_id: z.string().optional().describe('stateless mode only: the handle passed'),
      kind: z.enum(BROWSER_KINDS),
      version: z.string(),
      alive: z.boolean(),
      tabs: z.number().optional().describe('open tabs as of the last act; tabs lists them'),
    })
    .nullable(),
  window: z.object({ width: z.number(), height: z.number() }).nullable(),
  url: z.string().nullable(),
  title: z.string().nullable(),
  flows_here: z.array(z.string()).describe('saved flows meant for the current page (run_flow)'),
});

export type CurrentWorkspace = z.infer<typeof currentWorkspaceAnswer>;

/** What one caller's workspace service is built from. */
export interface WorkspaceViewDeps {
  workspaces: Workspaces;
  /** the names of the caller's flows meant for the page it is on (none when flows are off) */
  flowsHere: () => Promise<string[]>;
}

/** The caller's workspace: open or end its browser, and say what it holds. */
export function workspaceView(deps: WorkspaceViewDeps, caller: Caller, sessionId: string | undefined): WorkspaceView {
  const { workspaces } = deps;
  return {
    open: async (kind, window) => {
      const opened = await workspaces.open(caller, kind, window);
      // The opaque handle, never the Grid id; a saved workspace answers none (it remembers its browser).
      return { sessionId: opened.handle, browser: opened.kind, version: opened.version };
    },
    end: async () => ({ ended: await workspaces.end(caller, sessionId) }),
    describe: () => describeWorkspace(deps, caller, sessionId),
  };
}

async function describeWorkspace(
  { workspaces, flowsHere }: WorkspaceViewDeps,
  caller: Caller,
  sessionId: string | undefined,
): Promise<CurrentWorkspace> {
  if (!caller.key) {
    const held = sessionId ? await workspaces.describeHandle(caller, sessionId) : undefined;
    return {
      workspace: null,
      mode: 'stateless',
      browser: sessionId && held?.alive ? { session_id: sessionId, ...held } : null,
      window: null,
      url: null,
      title: null,
      flows_here: await flowsHere(),
    };
  }
  const record = await workspaces.record(caller.key);
  const alive = record?.gridId ? await workspaces.isAlive(record.gridId) : false;
  if (record?.gridId && !alive) {
    await workspaces.detach(caller.key, record);
  }
  return {
    workspace: caller.workspace ?? null,
    mode: 'saved',
    browser:
      record?.gridId && alive
        ? {
            kind: record.browser,
            version: record.browserVersion ?? '',
            alive,
            ...(record.windows ? { tabs: record.windows.tabs.length } : {}),
          }
        : null,
    window: record ? record.window : null,
    url: record?.url ?? null,
    title: record?.title ?? null,
    flows_here: await flowsHere(),
  };
}
