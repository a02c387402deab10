import { explainWebDriverError } from '../../browser/errors.js';
import { checkEnteredFrame, FRAME_LEFT_BY_ACT, leaveGoneFrame, leftFrameWithAct } from '../../browser/frames.js';
import type { PageState } from '../../browser/page-state.js';
import type { AttachedBrowser } from '../../workspace/workspaces.js';
import { BrowserGone, translateGridError } from '../../grid/failures.js';
import { SecretCall } from '../../secrets/secret-call.js';
import { turnKeyOf, type Caller } from '../../workspace/caller.js';
import { isAppButton, type Capability } from '../capability.js';
import type { AsStep, StepProgress } from '../../flows/view.js';
import { checkMode, parseArguments } from './arguments.js';
import { answerCall } from './answer.js';
import { runRow, type CallDeps, type ToolResult } from './contexts.js';
import { DEFAULT_CALL_TIMEOUT_MS, recoverStuckBrowser, withinDeadline } from './deadline.js';
import { checkPreconditions } from './preconditions.js';
import { observeCall } from '../../ops/calls.js';
import { waitForTurn } from '../../ops/metrics.js';
import type { Turns } from '../../workspace/turns.js';

export type { CallDeps, ToolResult } from './contexts.js';

/**
 * The one path every call takes, from MCP, HTTP and flow steps alike: validate, check the mode,
 * take the browser's turn, attach the browser, check the row's preconditions, act, record the
 * page; then the call's log line and metrics.
 */
export async function callTool(
  deps: CallDeps,
  capability: Capability,
  rawArgs: unknown,
  caller: Caller,
  asStep: AsStep = {},
): Promise<ToolResult> {
  const call = {
    tool: capability.name,
    workspace: caller.workspace,
    requestId: caller.requestId,
    started: performance.now(),
  };
  try {
    const result = await runCall(deps, capability, rawArgs, caller, asStep);
    observeCall(deps.log, call);
    return result;
  } catch (error) {
    observeCall(deps.log, { ...call, error });
    throw error;
  }
}

async function runCall(
  deps: CallDeps,
  capability: Capability,
  rawArgs: unknown,
  caller: Caller,
  asStep: AsStep,
): Promise<ToolResult> {
  const args = parseArguments(capability, rawArgs);
  const sessionId = checkMode(capability, args, caller);
  const turnKey = turnKeyOf(caller, sessionId);
  const { answerUnread = false, deadline, inTurn = false, progress, ...step } = asStep;
  // Binds with the step it runs as, and screens every answer and error against the values typed into this browser.
  const secrets = new SecretCall(deps.secrets, { workspace: caller.workspace, ...step }, turnKey);
  // The browser this call attaches: the one to recover if the call gets stuck on it.
  const attached: { browser?: AttachedBrowser } = {};
  const handle = () =>
    runHandler(deps, capability, args, caller, { sessionId, secrets, answerUnread, step, progress, attached });
  const recover = async () => {
    const recovery = await recoverStuckBrowser(deps.workspaces.grid, attached.browser);
    // A closed browser is forgotten, so the next acting call opens a new one.
    if (recovery === 'browser_closed' && caller.key) {
      await deps.workspaces.detach(caller.key);
    }
    return recovery;
  };
  const run = capability.boundsItself
    ? handle
    : () =>
        withinDeadline(
          capability,
          args,
          { callTimeoutMs: deps.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, until: deadline },
          handle,
          recover,
        );
  try {
    // The notice is read inside the turn: after it, a person's request may already be granted, and
    // the call would say "held" where it held the browser while they waited ("requested").
    const runAndNotice = async () => {
      const result = await run();
      // A hand-back is said once, to the agent: a person's own button taking it (hand_back's
      // answer) left the agent's await_control, woken by that hand-back, answering "nobody".
      const control = isAppButton(capability) ? undefined : await deps.controlNotice?.(caller);
      return control ? { ...result, control } : result;
    };
    return turnKey && capability.takesTurn && !inTurn
      ? await takeTurn(deps.turns, turnKey, runAndNotice)
      : await runAndNotice();
  } catch (err) {
    throw secrets.screenError(explainWebDriverError(translateGridError(err)));
  } finally {
    secrets.end();
  }
}

/** Runs in the browser's turn, counted as waiting until the turn comes. */
async function takeTurn<T>(turns: Turns, key: string, run: () => Promise<T>): Promise<T> {
  const waited = waitForTurn();
  try {
    return await turns.run(key, () => {
      waited();
      return run();
    });
  } finally {
    waited();
  }
}

interface CallState {
  sessionId: string | undefined;
  secrets: SecretCall;
  answerUnread: boolean;
  /** the flow step this call is, if it is one: what files it makes are marked made_by it */
  step: { flow?: string; step?: number | string };
  progress?: StepProgress;
  /** where the browser attached is left for recovery (see runCall) */
  attached: { browser?: AttachedBrowser };
}

async function runHandler(
  deps: CallDeps,
  capability: Capability,
  args: Record<string, unknown>,
  caller: Caller,
  { sessionId, secrets, answerUnread, step, progress, attached }: CallState,
): Promise<ToolResult> {
  const madeBy = step.flow === undefined ? undefined : { flow: step.flow, step: step.step ?? null };
  const call = { capability, caller, sessionId, secrets, madeBy, progress };
  const browser =
    capability.attach === 'none'
      ? undefined
      : await deps.workspaces.attach(caller, sessionId, capability.attach === 'open');
  attached.browser = browser;
  try {
    await checkPreconditions(deps.preconditions, { capability, args, caller, browser, sessionId });
    if (browser && capability.inEnteredFrame) {
      await checkEnteredFrame(browser.driver, browser.record?.frames);
    }
    await secrets.adopt(browser?.record);
    // The frame this act begins in, checked just above: the act runs there or nowhere.
    const entered = capability.kind === 'act' && capability.inEnteredFrame ? browser?.record?.frames : undefined;
    let known: PageState | undefined;
    let result = await runRow(deps, call, args, {
      browser,
      answerUnread,
      pageKnown: (page) => {
        known = page;
      },
      remember: ({ frames, window, windows }) => {
        const record = browser?.record;
        if (record && window) {
          record.window = window;
        }
        if (record && windows) {
          record.windows = windows;
        }
        if (record && frames !== undefined && frames > 0) {
          record.frames = frames;
        } else if (record && frames === 0) {
          delete record.frames;
        }
      },
      callTool,
    });
    if (browser && (await leftFrameWithAct(browser.driver, entered))) {
      // Read, and remembered, on the top page.
      delete browser.record?.frames;
      result = { ...result, frame_gone: FRAME_LEFT_BY_ACT };
    }
    return await answerCall(deps, call, args, browser, result, known ?? (answerUnread ? undefined : 'read'));
  } catch (err) {
    const acting = capability.kind === 'act' && capability.inEnteredFrame;
    const gone = browser
      ? await leaveGoneFrame(browser.driver, err, { acting, entered: browser.record?.frames })
      : undefined;
    if (browser && gone) {
      await deps.workspaces.forgetFrame(caller, browser);
      throw gone;
    }
    const translated = translateGridError(err);
    if (browser && translated instanceof BrowserGone && caller.key) {
      await deps.workspaces.detach(caller.key);
    }
    throw translated;
  }
}
