import { explainWebDriverError } from '../../browser/errors.js';
import { readPageState, type PageState } from '../../browser/page-state.js';
import { filesOf } from '../../files/workspace-files.js';
import { BrowserGone, translateGridError } from '../../grid/failures.js';
import { SecretCall } from '../../secrets/secret-call.js';
import { turnKeyOf, type Caller } from '../../workspace/caller.js';
import type { AttachedBrowser } from '../../workspace/workspaces.js';
import type { Capability } from '../capability.js';
import type { BrowserToolContext } from '../context.js';
import type { AsStep, StepProgress } from '../../flows/view.js';
import { answeredSomething, rememberCall } from '../../workspace/recent.js';
import { checkMode, parseArguments } from './arguments.js';
import { once, workspaceContext, type CallDeps, type ToolResult } from './contexts.js';
import { DEFAULT_CALL_TIMEOUT_MS, recoverCallersBrowser, withinDeadline } from './deadline.js';
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
  const handle = () => runHandler(deps, capability, args, caller, { sessionId, secrets, answerUnread, step, progress });
  const run = capability.boundsItself
    ? handle
    : () =>
        withinDeadline(
          capability,
          args,
          { callTimeoutMs: deps.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, until: deadline },
          handle,
          () => recoverCallersBrowser(deps.workspaces, caller, sessionId),
        );
  try {
    // The notice is read inside the turn: after it, a person's request may already be granted, and
    // the call would say "held" where it held the browser while they waited ("requested").
    const runAndNotice = async () => {
      const result = await run();
      const control = await deps.controlNotice?.(caller);
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
}

async function runHandler(
  deps: CallDeps,
  capability: Capability,
  args: Record<string, unknown>,
  caller: Caller,
  { sessionId, secrets, answerUnread, step, progress }: CallState,
): Promise<ToolResult> {
  const madeBy = step.flow === undefined ? undefined : { flow: step.flow, step: step.step ?? null };
  if (capability.attach === 'none') {
    await checkPreconditions(deps.preconditions, { capability, args, caller, sessionId });
    const ctx = workspaceContext(deps, { capability, caller, sessionId, secrets, madeBy, progress }, callTool);
    return secrets.screenAnswer(await capability.handler(args, ctx));
  }
  const browser = await deps.workspaces.attach(caller, sessionId, capability.attach === 'open');
  try {
    await checkPreconditions(deps.preconditions, { capability, args, caller, browser, sessionId });
    await secrets.adopt(browser.record);
    let known: PageState | undefined;
    const files = once(() => filesOf(deps.files, caller.workspace, madeBy));
    const ctx: BrowserToolContext = {
      driver: browser.driver,
      browserName: browser.browserName,
      caller,
      get files() {
        return files();
      },
      secrets,
      answerUnread,
      pageKnown: (page) => {
        known = page;
      },
    };
    const result = await capability.handler(args, ctx);
    secrets.noteIn(browser.record);
    // What a flow's own steps do is that flow already: only the caller's own calls are drafted from.
    if (
      browser.record &&
      !madeBy &&
      capability.runnableInFlow &&
      (capability.kind === 'act' || answeredSomething(result))
    ) {
      rememberCall(browser.record, { tool: capability.name, args }, (text) => secrets.carries(text));
    }
    return capability.kind === 'act'
      ? await answerAct(deps, caller, browser, secrets, result, known ?? (answerUnread ? undefined : 'read'))
      : await answerRead(deps, capability, args, caller, browser, secrets, result);
  } catch (err) {
    const translated = translateGridError(err);
    if (translated instanceof BrowserGone && caller.key) {
      await deps.workspaces.detach(caller.key);
    }
    throw translated;
  }
}

async function answerRead(
  deps: CallDeps,
  capability: Capability,
  args: Record<string, unknown>,
  caller: Caller,
  browser: AttachedBrowser,
  secrets: SecretCall,
  result: ToolResult,
): Promise<ToolResult> {
  if (caller.key) {
    // A read that may have moved the browser (extract given a url): remember where it is now.
    const page = capability.navigates(args) ? await readPageState(browser.driver) : undefined;
    await deps.workspaces.touch(caller.key, page && !secrets.screen(page).withheld ? page : undefined, browser.record);
  }
  const { shown, withheld } = secrets.screen(result);
  return secrets.screenAnswer(shown, withheld);
}

/**
 * Where the browser is after an act: what the handler handed back on `pageKnown` (write reads it
 * in a round trip it makes anyway), else read now, unless nobody will read it. A page whose
 * address or title carries a typed secret is neither answered nor remembered.
 */
async function answerAct(
  deps: CallDeps,
  caller: Caller,
  browser: AttachedBrowser,
  secrets: SecretCall,
  result: ToolResult,
  known: PageState | 'read' | undefined,
): Promise<ToolResult> {
  const page = known === 'read' ? await readPageState(browser.driver) : known;
  if (!page) {
    if (caller.key) {
      await deps.workspaces.touch(caller.key, undefined, browser.record);
    }
    return secrets.screenAnswer(result);
  }
  const { shown, withheld } = secrets.screen(page);
  if (caller.key) {
    await deps.workspaces.touch(caller.key, withheld ? undefined : page, browser.record);
  }
  return secrets.screenAnswer(
    { ...shown, ...result, ...(page.dialog ? { url: browser.record?.url ?? page.url } : {}) },
    withheld,
  );
}
