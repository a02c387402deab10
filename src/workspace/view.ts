import type { WebDriver } from 'selenium-webdriver';
import type { BrowserKind } from '../grid/capabilities.js';
import type { Caller } from './caller.js';
import type { SeenPage } from './records.js';
import type { Workspaces } from './workspaces.js';

/** What workspace-level tools may do, and nothing more: handlers see a narrow context. */
export interface WorkspaceView {
  open(
    kind: BrowserKind | undefined,
    window: { width?: number; height?: number },
  ): Promise<{ sessionId?: string; url: string; title: string }>;
  end(): Promise<{ ended: boolean }>;
  describe(): Promise<CurrentWorkspace>;
}

export interface CurrentWorkspace {
  workspace: string | null;
  mode: 'saved' | 'stateless';
  browser: null | {
    /** stateless only: the handle the caller passed */
    session_id?: string;
    kind: BrowserKind;
    version: string;
    alive: boolean;
  };
  window: { width: number; height: number } | null;
  url: string | null;
  title: string | null;
  /** flows whose urls match the current page */
  flows_here: string[];
}

/** What one caller's workspace service is built from. */
export interface WorkspaceViewDeps {
  workspaces: Workspaces;
  /** where a browser is: browser/'s page read, handed in (workspace/ never reads a page itself) */
  readPage: (driver: WebDriver) => Promise<SeenPage>;
  /** the names of the caller's flows meant for the page it is on (none when flows are off) */
  flowsHere: () => Promise<string[]>;
}

/** The caller's workspace: open or end its browser, and say what it holds. */
export function workspaceView(deps: WorkspaceViewDeps, caller: Caller, sessionId: string | undefined): WorkspaceView {
  const { workspaces } = deps;
  return {
    open: async (kind, window) => {
      const opened = await workspaces.open(caller, kind, window);
      const page = await deps.readPage(opened.driver);
      // The opaque handle, never the Grid id; a saved workspace answers none (it remembers its browser).
      return { sessionId: opened.handle, url: page.url, title: page.title };
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
    browser: record?.gridId && alive ? { kind: record.browser, version: record.browserVersion ?? '', alive } : null,
    window: record ? record.window : null,
    url: record?.url ?? null,
    title: record?.title ?? null,
    flows_here: await flowsHere(),
  };
}
