import type { Caller } from '../workspace/caller.js';
import type { FlowDraft, FlowListing, FlowRead, FlowSaved, RunReport } from './answers.js';
import type { RecentCall } from '../workspace/recent.js';

/** How a call runs as a step of a flow, where a direct call differs. */
export interface AsStep {
  /** the flow and its step, for the audit of a secret the step binds */
  flow?: string;
  step?: number | string;
  /**
   * nothing will read the call's answer (a flow step whose report shows only a summary): an act
   * skips the reads it makes only to answer (the page it leaves, the value write reads back)
   */
  answerUnread?: boolean;
  /** the end of the flow run this step is part of (epoch ms): the step's deadline never passes it */
  deadline?: number;
  /**
   * the flow holds the browser's turn for its whole run (so no other call runs between two of its
   * steps): the step runs in that turn instead of waiting in line behind its own flow
   */
  inTurn?: boolean;
  /** hears each step of a flow this call runs (MCP progress notifications); never passed on to a step */
  progress?: StepProgress;
}

export type StepProgress = (done: number, total: number, message: string) => void;

/** What the runner says of each step it calls. */
export type StepOrigin = Required<Omit<AsStep, 'inTurn' | 'progress'>>;

/** What flow tools may do for one caller; handlers see nothing else. */
export interface FlowsView {
  /** the flows whose `urls` match `url`, else the page the browser is on (every flow when it is on none) */
  list(everywhere: boolean, url?: string): Promise<FlowListing[]>;
  get(name: string): Promise<FlowRead>;
  save(name: string, document: string | Record<string, unknown>, ifMatch?: string): Promise<FlowSaved>;
  delete(name: string, ifMatch?: string): Promise<{ deleted: boolean }>;
  run(name: string, params: Record<string, unknown>, verbose: boolean): Promise<RunReport>;
  schema(): Record<string, unknown>;
  draft(last: number, name: string | undefined): Promise<FlowDraft>;
}

/** How a flow run reaches the browser: the one call path, as the same caller. */
export interface FlowToolbox {
  /** `step` names the flow step, for the audit of a secret it binds */
  call(tool: string, args: Record<string, unknown>, step: StepOrigin): Promise<Record<string, unknown>>;
  /** hears each step as it ends, when the caller asked for progress */
  progress?: StepProgress;
  /** the workspace's last successful calls, oldest first, for draft_flow (none for a stateless caller) */
  recentCalls(): Promise<RecentCall[]>;
  /** where the browser is now: for the flows of this page, and the page a failed run names */
  currentUrl(): Promise<string | null>;
  /** where a run ended, when its last step did not say: asked of the browser and remembered as the workspace's page */
  endPage(): Promise<{ url: string; title: string } | null>;
}

/** A flow as its own MCP tool sees it. */
export interface FlowTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  shared: boolean;
  /** every step only reads */
  readOnly: boolean;
  /** some step is destructive */
  destructive: boolean;
}

export interface FlowsService {
  view(caller: Caller, toolbox: FlowToolbox): FlowsView;
  /** the flows a caller can run that are fit to be tools, most recently run first */
  tools(caller: Caller): Promise<FlowTool[]>;
  /** hears the library whose flows changed (a save, a delete, a move); answers the unsubscribe */
  onChange(listener: (library: string) => void): () => void;
  /** a library changed behind the agents' back (an operator's move): tell the listeners */
  changed(library: string): void;
}
