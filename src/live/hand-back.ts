import { z } from 'zod';
import { NotFound } from '../errors.js';
import type { Caller } from '../workspace/caller.js';
import { copy, said } from './control-copy.js';
import type { Controls } from './control.js';

/** A person's Control of the workspace's browser, as await_control sees it. */
export interface ControlView {
  /** waits (at most LIVE_AWAIT_CAP) for the person to hand back, and says what they did */
  awaitHandBack(): Promise<HandBackSummary>;
}

/** await_control's answer, declared once for the row and the wait. */
export const handBackSummary = z.object({
  handed_back: z.boolean().describe('false: nobody had control, or still held at the cap (call again)'),
  message: z.string().describe('what to do next'),
  who: z.string().optional(),
  held_for: z.number().optional().describe('seconds they held it'),
  ended: z.literal(true).optional().describe('the browser ended while they held it: open_session'),
  visited: z
    .array(z.object({ url: z.string(), title: z.string() }))
    .optional()
    .describe('pages they reached, oldest first (at most 100)'),
  dropped: z.number().optional().describe('older pages left out of visited'),
  visited_stopped: z.string().optional().describe('why visited ends before the hand-back'),
  url: z.string().optional().describe('the page now'),
  title: z.string().optional(),
  outline: z.string().optional(),
  truncated: z.boolean().optional(),
});

export type HandBackSummary = z.infer<typeof handBackSummary>;

/** A person's Control episodes, and how long await_control waits (LIVE_AWAIT_CAP). */
export interface HandBackDeps {
  controls: Controls;
  capMs: number;
  /** aborted when this replica stops: the wait answers at once, and the agent calls again elsewhere */
  stopping?: AbortSignal;
}

/** What one wait is built from beside the caller: the page read after a hand-back, and who hears progress. */
export interface HandBackCall {
  /** reads the page now through the ordinary call path (its turn, its screening); none: the agent looks itself */
  readPage?: () => Promise<Record<string, unknown>>;
  /** hears the seconds waited while the person holds on */
  progress?: (done: number, total: number, message: string) => void;
}

/**
 * await_control for the caller's workspace: the wait (Controls.awaitHandBack, which polls the
 * store every replica shares), then what the person did, and the page now. A stateless caller
 * has no workspace a person could take, so nobody is in control of it.
 */
export function handBackView(
  control: HandBackDeps | undefined,
  caller: Caller,
  { readPage, progress }: HandBackCall,
): ControlView {
  return {
    awaitHandBack: async () => {
      if (!control || caller.workspace === undefined) {
        return { handed_back: false, message: copy.nobody };
      }
      const capSeconds = Math.round(control.capMs / 1000);
      const signals = [caller.abandoned, control.stopping].filter((s): s is AbortSignal => s !== undefined);
      const waited = await control.controls.awaitHandBack(caller.workspace, control.capMs, {
        signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
        progress:
          progress &&
          ((episode, ms) =>
            progress(Math.round(ms / 1000), capSeconds, `waiting for ${said(episode.who)} to hand back`)),
      });
      if (waited.state === 'nobody') {
        return { handed_back: false, message: copy.nobody };
      }
      if (waited.state === 'still') {
        const message = control.stopping?.aborted ? copy.stopping : copy.atCap(waited.episode.who);
        return { handed_back: false, who: said(waited.episode.who), message };
      }
      const { back, visited } = waited;
      const summary: HandBackSummary = {
        handed_back: true,
        message: '',
        who: said(back.who),
        held_for: Math.max(0, Math.round((Date.parse(back.until) - Date.parse(back.since)) / 1000)),
        visited: visited.pages,
        dropped: visited.dropped,
        ...(visited.stopped === undefined ? {} : { visited_stopped: visited.stopped }),
      };
      if (back.ended) {
        return { ...summary, ended: true, message: copy.ended(back.who) };
      }
      const page = await pageNow(readPage);
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

async function pageNow(
  readPage: HandBackCall['readPage'],
): Promise<Pick<HandBackSummary, 'url' | 'title' | 'outline' | 'truncated'> | 'gone'> {
  if (!readPage) {
    return {};
  }
  try {
    const read = await readPage();
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
