import { readPageState } from '../../browser/page-state.js';
import { BadRequest } from '../../errors.js';
import { SecretCall } from '../../secrets/secret-call.js';
import { filesOf } from '../../files/workspace-files.js';
import { liveAppView, type LiveViewer } from '../../live/app-live.js';
import { handBackView } from '../../live/hand-back.js';
import { networkView } from '../../live/network-view.js';
import { workspaceView } from '../../workspace/view.js';
import type { WorkspaceToolContext } from '../context.js';
import { turnKeyOf, type Caller } from '../../workspace/caller.js';
import { capabilityNamed } from '../index.js';
import type { AsStep, FlowToolbox, StepProgress } from '../../flows/view.js';
import type { Files } from '../../files/files.js';
import type { Secrets } from '../../secrets/binding.js';
import type { Turns } from '../../workspace/turns.js';
import type { Workspaces } from '../../workspace/workspaces.js';
import type { Live } from '../../live/live.js';
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
  live?: Live;
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
  control?: { controls: Controls; capMs: number; tasks?: ControlTasks; viewer?: LiveViewer };
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

/**
 * What a workspace-level tool sees. Each view is built at the handler's first look at it, and
 * once: current_workspace builds the workspace view alone, not five views for one answer.
 */
export function workspaceContext(deps: CallDeps, call: CallOrigin, callTool: CallPath): WorkspaceToolContext {
  const { capability, caller, sessionId, secrets, progress } = call;
  const flowsOf = (inTurn: boolean, heard?: StepProgress) =>
    deps.flows?.view(caller, flowToolbox(deps, caller, sessionId, callTool, inTurn, heard));
  const workspace = once(() =>
    workspaceView(
      {
        workspaces: deps.workspaces,
        readPage: readPageState,
        flowsHere: async () => (await flowsOf(false)?.list(false))?.map((f) => f.name) ?? [],
      },
      caller,
      sessionId,
    ),
  );
  // A flow that took the turn (run_flow) runs its steps in it.
  const flows = once(() => flowsOf(capability.takesTurn, progress));
  const files = once(() => filesOf(deps.files, caller.workspace, call.madeBy));
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

/** Built at the first call, and only then; every later call answers the same value. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/** A flow's steps are ordinary calls by the same caller (a stateless one lends its session_id). */
export function flowToolbox(
  deps: CallDeps,
  caller: Caller,
  sessionId: string | undefined,
  callTool: CallPath,
  inTurn = false,
  progress?: StepProgress,
): FlowToolbox {
  return {
    progress,
    recentCalls: async () => (caller.key ? ((await deps.workspaces.record(caller.key))?.recent ?? []) : []),
    // asStep: the flow and step, for the audit of a secret the step binds
    call: async (tool, args, asStep) => {
      const capability = capabilityNamed(tool);
      if (!capability) {
        throw new BadRequest(`Unknown tool ${tool}.`);
      }
      return callTool(deps, capability, caller.key || !sessionId ? args : { ...args, session_id: sessionId }, caller, {
        ...asStep,
        inTurn,
      });
    },
    currentUrl: async () => (await screenedPage(deps, caller, sessionId))?.shown.url ?? null,
    // Steps skip reads nobody makes, so the record is behind until the run's end page is read:
    // remembered like any call's page, in the browser's turn, unless a secret is in it.
    endPage: async () => {
      const turnKey = turnKeyOf(caller, sessionId);
      const read = async () => {
        const screened = await screenedPage(deps, caller, sessionId);
        if (screened && caller.key) {
          await deps.workspaces.touch(caller.key, screened.withheld ? undefined : screened.shown, screened.record);
        }
        return screened?.shown ?? null;
      };
      return turnKey && !inTurn ? deps.turns.run(turnKey, read) : read();
    },
  };
}

/** Where the caller's browser is, as much of it as may be shown (a secret typed earlier may be in it). */
async function screenedPage(deps: CallDeps, caller: Caller, sessionId: string | undefined) {
  const { page, record } = await deps.workspaces.currentPage(caller, sessionId, readPageState);
  return (
    page && {
      ...new SecretCall(deps.secrets, { workspace: caller.workspace }, turnKeyOf(caller, sessionId)).screen(page),
      record,
    }
  );
}
