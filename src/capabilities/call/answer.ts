import { readPageAfterAct, readPageState, type PageState } from '../../browser/page-state.js';
import { tabsOpenedSince } from '../../browser/tabs.js';
import type { SecretCall } from '../../secrets/secret-call.js';
import { answeredSomething, rememberCall } from '../../workspace/recent.js';
import type { AttachedBrowser } from '../../workspace/workspaces.js';
import type { CallDeps, CallOrigin, ToolResult } from './contexts.js';

/**
 * What a call answers once its handler is done, and what its workspace remembers: a browser
 * call answers with the page it left (an act) and is noted for drafting flows; every answer and
 * page is screened against the values typed into this browser.
 */
export async function answerCall(
  deps: CallDeps,
  call: CallOrigin,
  args: Record<string, unknown>,
  browser: AttachedBrowser | undefined,
  result: ToolResult,
  known: PageState | 'read' | undefined,
): Promise<ToolResult> {
  const { capability, secrets } = call;
  if (!browser) {
    return secrets.screenAnswer(result);
  }
  secrets.noteIn(browser.record);
  // What a flow's own steps do is that flow already: only the caller's own calls are drafted from.
  if (
    browser.record &&
    !call.madeBy &&
    capability.runnableInFlow &&
    (capability.kind === 'act' || answeredSomething(result))
  ) {
    rememberCall(browser.record, { tool: capability.name, args }, (text) => secrets.carries(text));
  }
  const { answer, seen } =
    capability.kind === 'act'
      ? await answerAct(browser, secrets, result, known, capability.navigates(args))
      : await answerRead(capability.navigates(args), browser, secrets, result);
  if (call.caller.key) {
    await deps.workspaces.touch(call.caller.key, seen, browser.record);
  }
  return answer;
}

/** A call's answer, and the page its workspace remembers (none: keep the last one). */
interface Answered {
  answer: ToolResult;
  seen: PageState | undefined;
}

async function answerRead(
  navigated: boolean,
  browser: AttachedBrowser,
  secrets: SecretCall,
  result: ToolResult,
): Promise<Answered> {
  // A read that may have moved the browser (extract given a url): a workspace that remembers
  // its page (one with a record) reads where it is now.
  const page = navigated && browser.record ? await readPageState(browser.driver) : undefined;
  const { shown, withheld } = secrets.screen(result);
  return {
    answer: secrets.screenAnswer(shown, withheld),
    seen: page && !secrets.screen(page).withheld ? page : undefined,
  };
}

/**
 * The page, and the tabs the act opened (a link to _blank, window.open): the agent is told, or
 * it would act on the page it left and never learn the new one. The workspace learns them.
 */
async function withOpenedTabs(browser: AttachedBrowser, page: PageState): Promise<PageState> {
  const record = browser.record;
  // Reading a new window leaves the entered frame: the next act on the top page names it.
  if (!record || record.frames) {
    return page;
  }
  const { opened, windows } = await tabsOpenedSince(browser.driver, record.windows, browser.devtools);
  record.windows = windows;
  return opened.length > 0 ? { ...page, opened_tabs: opened } : page;
}

/**
 * Where the browser is after an act: what the handler handed back on `pageKnown` (write reads it
 * in a round trip it makes anyway), else read now, unless nobody will read it. A page whose
 * address or title carries a typed secret is neither answered nor remembered.
 */
async function answerAct(
  browser: AttachedBrowser,
  secrets: SecretCall,
  result: ToolResult,
  known: PageState | 'read' | undefined,
  navigated: boolean,
): Promise<Answered> {
  const read = known === 'read' ? await readPageAfterAct(browser.driver) : known;
  if (!read) {
    return { answer: secrets.screenAnswer(result), seen: undefined };
  }
  const page = navigated && browser.record && !read.dialog ? await withOpenedTabs(browser, read) : read;
  const { shown, withheld } = secrets.screen(page);
  // A dialog hides the page's address from WebDriver: the page the act named (a navigation's),
  // else the one the workspace was on.
  const hidden = page.dialog && !page.url ? { url: browser.record?.url ?? '' } : {};
  return {
    answer: secrets.screenAnswer({ ...shown, ...result, ...hidden }, withheld),
    seen: withheld ? undefined : page,
  };
}
