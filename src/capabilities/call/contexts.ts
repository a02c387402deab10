import { readPageState, type PageState } from '../../browser/page-state.js';
import { BadRequest } from '../../errors.js';
import type { SecretCall } from '../../secrets/secret-call.js';
import { filesOf, type WorkspaceFiles } from '../../files/workspace-files.js';
import { liveAppView, type LiveViewer } from '../../live/app-live.js';
import { handBackView } from '../../live/hand-back.js';
import { networkView } from '../../live/monitor/network-view.js';
import { workspaceView } from '../../workspace/view.js';
import type { BrowserToolContext, WorkspaceToolContext } from '../context.js';
import type { AttachedBrowser } from '../../workspace/workspaces.js';
import type { Caller } from '../../workspace/caller.js';
import { capabilityNamed } from '../index.js';
import type { AsStep, StepProgress } from '../../flows/view.js';
import { flowToolbox, type FlowToolboxDeps } from '../../flows/toolbox.js';
import type { Files } from '../../files/files.js';
import type { Secrets } from '../../secrets/binding.js';
import type { Turns } from '../../workspace/turns.js';
import type { Workspaces } from '../../workspace/workspaces.js';
import type { Monitoring } from '../../live/monitor/monitoring.js';
import type { Controls } from '../../live/control.js';
import type { ControlTasks } from '../../live/tasks.js';
import type { Capability } from '../capability.js';
import type { FlowsService } from '../../flows/view.js';
import type { Precondition } from './preconditions.js';
import type { CallLog } from '../../ops/calls.js';

/** What the call path is built from (server.ts wires it once). */
export interface CallDeps {
  workspaces: Workspaces;
  /** the BiDi monitor and network capture; undefined where a caller built deps without them */
  monitoring?: Monitoring;
  turns: Turns;
  /** undefined when flows are off (no data directory) */
  flows?: FlowsService;
  /** downloads, screenshots and Files of every workspace */
  files: Files;
  /** the secrets catalogue and its audit; undefined: none configured */
  secrets?: Secrets;
  /** CALL_TIMEOUT in ms (default 60 s) */
  callTimeoutMs?: number;
  /** what must hold before a handler runs, checked in this order after the call is attached */
  preconditions?: readonly Precondition[];
  /** where each call's line goes (tool, workspace, outcome, ms); undefined: nowhere */
  log?: CallLog;
  /** what a result carries beside its answer while a person's Control applies (docs/live.md) */
  controlNotice?: (caller: Caller) => Promise<Record<string, unknown> | undefined>;
  /** a person's Control episodes, and how long await_control waits (LIVE_AWAIT_CAP) */
  control?: {
    controls: Controls;
    capMs: number;
    tasks?: ControlTasks;
    viewer?: LiveViewer;
    /** aborted when this replica stops (SIGTERM): a waiting await_control answers at once */
    stopping?: AbortSignal;
  };
}

export type ToolResult = Record<string, unknown>;

/** The one call path, passed in: a flow's steps and a workspace's flows call it, and it builds these contexts. */
export type CallPath = (
  deps: CallDeps,
  capability: Capability,
  args: unknown,
  caller: Caller,
  asStep?: AsStep,
) => Promise<ToolResult>;

/** What the call path knows of a call when it builds its handler's context. */
export interface CallOrigin {
  capability: Capability;
  caller: Caller;
  /** stateless mode: the handle the caller passed */
  sessionId: string | undefined;
  secrets: SecretCall;
  /** the flow step this call is, if it is one: what files it makes are marked made_by it */
  madeBy: { flow: string; step: number | string | null } | undefined;
  progress?: StepProgress;
}

/** What runRow is handed beside the call: what it was attached to, and the call path itself. */
export interface RowRun {
  /** the browser attached; undefined for a workspace tool (attach: 'none') */
  browser: AttachedBrowser | undefined;
  answerUnread: boolean;
  pageKnown: (page: PageState) => void;
  remember: BrowserToolContext['remember'];
  /** the call path itself, for a workspace tool that calls tools (flows, the hand-back's page read) */
  callTool: CallPath;
}

/** Runs a row's handler with the context its attachment gives it, built here and nowhere else. */
export function runRow(
  deps: CallDeps,
  call: CallOrigin,
  args: Record<string, unknown>,
  { browser, callTool, ...onBrowser }: RowRun,
): Promise<ToolResult> {
  const { capability } = call;
  const files = once(() => filesOf(deps.files, call.caller.workspace, call.madeBy));
  if (capability.attach === 'none') {
    return capability.handler(args, workspaceContext(deps, call, files, callTool));
  }
  if (!browser) {
    throw new Error(`${capability.name} runs on a browser, and the call path attached none.`);
  }
  return capability.handler(args, browserContext(call, browser, files, onBrowser));
}

/**
 * What a browser tool sees: its browser, and its workspace's files built at the first look.
 * `pageKnown` is where the handler hands back a page it read anyway (answer.ts answers it).
 */
function browserContext(
  call: CallOrigin,
  browser: AttachedBrowser,
  files: () => WorkspaceFiles,
  { answerUnread, pageKnown, remember }: Pick<RowRun, 'answerUnread' | 'pageKnown' | 'remember'>,
): BrowserToolContext {
  return {
    driver: browser.driver,
    browserName: browser.browserName,
    caller: call.caller,
    get files() {
      return files();
    },
    secrets: call.secrets,
    answerUnread,
    pageKnown,
    remember,
    frames: browser.record ? (browser.record.frames ?? 0) : undefined,
  };
}

/**
 * What a workspace-level tool sees. Each view is built at the handler's first look at it, and
 * once: current_workspace builds the workspace view alone, not five views for one answer.
 */
function workspaceContext(
  deps: CallDeps,
  call: CallOrigin,
  files: () => WorkspaceFiles,
  callTool: CallPath,
): WorkspaceToolContext {
  const { capability, caller, sessionId, secrets, progress } = call;
  const flowsOf = (inTurn: boolean, heard?: StepProgress) =>
    deps.flows?.view(
      caller,
      flowToolbox(flowToolboxDeps(deps, callTool), caller, { sessionId, inTurn, progress: heard }),
    );
  const workspace = once(() =>
    workspaceView(
      {
        workspaces: deps.workspaces,
        flowsHere: async () => (await flowsOf(false)?.list(false))?.map((f) => f.name) ?? [],
      },
      caller,
      sessionId,
    ),
  );
  // A flow that took the turn (run_flow) runs its steps in it.
  const flows = once(() => flowsOf(capability.takesTurn, progress));
  const network = once(() => networkView(deps, caller, secrets));
  const { handBackRead } = capability;
  const control = once(() =>
    handBackView(deps.control, caller, {
      readPage: handBackRead && (() => callTool(deps, handBackRead.tool, handBackRead.args, caller)),
      progress,
    }),
  );
  const live = once(() => liveAppView(deps.control, caller));
  return {
    caller,
    secrets,
    get workspace() {
      return workspace();
    },
    get flows() {
      return flows();
    },
    get files() {
      return files();
    },
    get network() {
      return network();
    },
    get control() {
      return control();
    },
    get live() {
      return live();
    },
  };
}

/** A flow's steps name their tools: the call path finds each row and calls it as any surface does. */
function flowToolboxDeps(deps: CallDeps, callTool: CallPath): FlowToolboxDeps {
  return {
    ...deps,
    readPage: readPageState,
    callTool: (tool, args, caller, asStep) => {
      const capability = capabilityNamed(tool);
      if (!capability) {
        throw new BadRequest(`Unknown tool ${tool}.`);
      }
      return callTool(deps, capability, args, caller, asStep);
    },
  };
}

/** Built at the first call, and only then; every later call answers the same value. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
