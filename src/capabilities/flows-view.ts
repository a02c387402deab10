import type { Caller } from '../workspace/caller.js';

export interface FlowListing {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  urls?: string[];
  /** true when it comes from the shared `global` library */
  shared: boolean;
  /** why the stored file cannot run (a hand edit gone wrong); the listing still shows it */
  problem?: string;
}

export interface FlowRead {
  name: string;
  shared: boolean;
  revision: string;
  text: string;
  document: Record<string, unknown> | null;
  problem?: string;
}

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
}

/** What flow tools may do for one caller; handlers see nothing else. */
export interface FlowsView {
  list(everywhere: boolean): Promise<FlowListing[]>;
  get(name: string): Promise<FlowRead>;
  save(
    name: string,
    document: string | Record<string, unknown>,
    ifMatch?: string,
  ): Promise<{ name: string; revision: string; created: boolean }>;
  delete(name: string, ifMatch?: string): Promise<{ deleted: boolean }>;
  run(name: string, params: Record<string, unknown>, verbose: boolean): Promise<Record<string, unknown>>;
  schema(): Record<string, unknown>;
}

/** How a flow run reaches the browser: the one call path, as the same caller. */
export interface FlowToolbox {
  /** `step` names the flow step, for the audit of a secret it binds */
  call(tool: string, args: Record<string, unknown>, step: Required<AsStep>): Promise<Record<string, unknown>>;
  /** where the browser is now: for the flows of this page, and the page a failed run names */
  currentUrl(): Promise<string | null>;
  /** where a run ended, when its last step did not say: asked of the browser and remembered as the workspace's page */
  endPage(): Promise<{ url: string; title: string } | null>;
}

export interface FlowsService {
  view(caller: Caller, toolbox: FlowToolbox): FlowsView;
}
