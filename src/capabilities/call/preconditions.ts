import { openDialogMessage } from '../../browser/dialogs.js';
import { dialogOpen } from '../../browser/errors.js';
import type { Caller } from '../../workspace/caller.js';
import type { AttachedBrowser } from '../../workspace/workspaces.js';
import type { Capability } from '../capability.js';

/** A call about to run, as a precondition sees it: after its turn is taken and its browser attached. */
export interface PendingCall {
  capability: Capability;
  args: Record<string, unknown>;
  caller: Caller;
  /** the browser it is attached to; undefined for a tool that attaches none (attach: 'none') */
  browser?: AttachedBrowser;
  /** stateless mode: the handle the caller passed */
  sessionId?: string;
}

/**
 * Something that must hold before a handler runs, read off the row (answersUnderControl,
 * blockedByDialog…): it throws the refusal, a typed error that says the remedy. Handlers never
 * check these themselves; a new one is one more entry in CallDeps.preconditions.
 */
export interface Precondition {
  check(call: PendingCall): void | Promise<void>;
}

/**
 * A row with `blockedByDialog` is refused while a page dialog is open. The browser is asked only
 * when the last page read had one (the workspace remembers it), so a call pays no round trip for
 * it otherwise; a dialog nobody has read yet (a timer's) WebDriver refuses the same way.
 */
export const notBehindDialog: Precondition = {
  async check({ capability, browser }) {
    if (!capability.blockedByDialog || !browser?.record?.dialog) {
      return;
    }
    const message = await openDialogMessage(browser.driver);
    if (message !== undefined) {
      throw dialogOpen(message);
    }
  },
};

/** What every call checks, after what the server adds (Control first: a held browser is not even asked). */
const ALWAYS: readonly Precondition[] = [notBehindDialog];

export async function checkPreconditions(
  preconditions: readonly Precondition[] | undefined,
  call: PendingCall,
): Promise<void> {
  for (const precondition of [...(preconditions ?? []), ...ALWAYS]) {
    await precondition.check(call);
  }
}
