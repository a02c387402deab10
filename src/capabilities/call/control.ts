import { NotFound } from '../../errors.js';
import { copy, said } from '../../live/control.js';
import type { Caller } from '../../workspace/caller.js';
import type { ControlView, HandBackSummary } from '../context.js';
import type { StepProgress } from '../flows-view.js';
import type { Capability } from '../capability.js';
import type { CallDeps, CallPath } from './contexts.js';

/**
 * await_control for the caller's workspace: the wait (Controls.awaitHandBack, which polls the
 * store every replica shares), then what the person did, and the page now read through the
 * ordinary call path (its turn, its screening of typed secrets). A stateless caller has no
 * workspace a person could take, so nobody is in control of it.
 */
export function controlView(
  deps: CallDeps,
  capability: Capability,
  caller: Caller,
  callTool: CallPath,
  progress: StepProgress | undefined,
): ControlView {
  return {
    awaitHandBack: async () => {
      const control = deps.control;
      if (!control || caller.workspace === undefined) {
        return { handed_back: false, message: copy.nobody };
      }
      const capSeconds = Math.round(control.capMs / 1000);
      const waited = await control.controls.awaitHandBack(caller.workspace, control.capMs, {
        signal: caller.abandoned,
        progress:
          progress &&
          ((episode, ms) =>
            progress(Math.round(ms / 1000), capSeconds, `waiting for ${said(episode.who)} to hand back`)),
      });
      if (waited.state === 'nobody') {
        return { handed_back: false, message: copy.nobody };
      }
      if (waited.state === 'still') {
        return { handed_back: false, who: said(waited.episode.who), message: copy.atCap(waited.episode.who) };
      }
      const { back, visited } = waited;
      const summary: HandBackSummary = {
        handed_back: true,
        message: '',
        who: said(back.who),
        held_for: Math.max(0, Math.round((Date.parse(back.until) - Date.parse(back.since)) / 1000)),
        visited: visited.pages,
        dropped: visited.dropped,
      };
      if (back.ended) {
        return { ...summary, ended: true, message: copy.ended(back.who) };
      }
      const page = await pageNow(deps, capability, caller, callTool);
      if (page === 'gone') {
        return { ...summary, ended: true, message: copy.ended(back.who) };
      }
      return {
        ...summary,
        ...page,
        message: page.url
          ? `${said(back.who)} handed the browser back; carry on from the page below.`
          : `${said(back.who)} handed the browser back; look at the page (outline) before carrying on.`,
      };
    },
  };
}

/** The page now, read as the row's `handBackRead` says (none: the agent looks for itself). */
async function pageNow(
  deps: CallDeps,
  capability: Capability,
  caller: Caller,
  callTool: CallPath,
): Promise<Pick<HandBackSummary, 'url' | 'title' | 'outline' | 'truncated'> | 'gone'> {
  const reading = capability.handBackRead;
  if (!reading) {
    return {};
  }
  try {
    const read = await callTool(deps, reading.tool, reading.args, caller);
    return {
      url: String(read.url),
      title: String(read.title),
      outline: String(read.outline),
      ...(read.truncated === true ? { truncated: true } : {}),
    };
  } catch (err) {
    // The browser went with the hand-back (ended, or reaped): said as ended, never reopened.
    // Any other refusal (a dialog the person left open) leaves the page for the agent to read.
    return err instanceof NotFound ? 'gone' : {};
  }
}
