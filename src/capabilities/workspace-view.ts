import type { BrowserKind } from '../grid/capabilities.js';

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
