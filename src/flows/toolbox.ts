import type { WebDriver } from 'selenium-webdriver';
import { SecretCall } from '../secrets/secret-call.js';
import type { Secrets } from '../secrets/binding.js';
import { turnKeyOf, type Caller } from '../workspace/caller.js';
import type { SeenPage } from '../workspace/records.js';
import type { Turns } from '../workspace/turns.js';
import type { Workspaces } from '../workspace/workspaces.js';
import type { AsStep, FlowToolbox, StepProgress } from './view.js';

/** What one caller's flow toolbox is built from: the call path hands in itself and the page read. */
export interface FlowToolboxDeps {
  workspaces: Workspaces;
  turns: Turns;
  /** undefined: no secrets configured */
  secrets?: Secrets;
  /** where a browser is: browser/'s page read, handed in (flows/ reaches a browser through the call path) */
  readPage: (driver: WebDriver) => Promise<SeenPage>;
  /** the one call path, by a step's tool name */
  callTool: (
    tool: string,
    args: Record<string, unknown>,
    caller: Caller,
    asStep: AsStep,
  ) => Promise<Record<string, unknown>>;
}

/** Where this caller's flow runs: a stateless caller's browser, whether the run already holds its turn. */
export interface FlowRunPlace {
  /** stateless mode: the handle the caller passed, lent to every step */
  sessionId: string | undefined;
  /** the flow took the browser's turn (run_flow): its steps run in it instead of queueing behind it */
  inTurn: boolean;
  progress?: StepProgress;
}

/** A flow's steps are ordinary calls by the same caller (a stateless one lends its session_id). */
export function flowToolbox(deps: FlowToolboxDeps, caller: Caller, place: FlowRunPlace): FlowToolbox {
  const { sessionId, inTurn, progress } = place;
  return {
    progress,
    recentCalls: async () => (caller.key ? ((await deps.workspaces.record(caller.key))?.recent ?? []) : []),
    // asStep: the flow and step, for the audit of a secret the step binds
    call: async (tool, args, asStep) =>
      deps.callTool(tool, caller.key || !sessionId ? args : { ...args, session_id: sessionId }, caller, {
        ...asStep,
        inTurn,
      }),
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
async function screenedPage(deps: FlowToolboxDeps, caller: Caller, sessionId: string | undefined) {
  const { page, record } = await deps.workspaces.currentPage(caller, sessionId, deps.readPage);
  return (
    page && {
      ...new SecretCall(deps.secrets, { workspace: caller.workspace }, turnKeyOf(caller, sessionId)).screen(page),
      record,
    }
  );
}
