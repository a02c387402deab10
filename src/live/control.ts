import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { Conflict, Controlled, NotFound } from '../errors.js';
import { callerOfWorkspace, turnKeyOf } from '../workspace/caller.js';
import type { RecordStore } from '../workspace/records.js';
import type { Turns } from '../workspace/turns.js';
import { copy, said } from './control-copy.js';
import { LiveDocuments, type LiveStore } from './live-store.js';
import { visitedOf, type FollowedBrowser, type Visited } from './pages.js';

/**
 * A person's Control of a workspace's browser, one episode per workspace: requested → held →
 * released. The episode lives in the workspace store (memory, or the Redis every replica
 * shares), so control taken through one replica refuses agents on every replica.
 */
const storedEpisode = z.object({
  state: z.enum(['requested', 'held']),
  /** the person, as the admin page names them */
  who: z.string(),
  /** when they asked (ISO) */
  since: z.string(),
  /** when it became theirs (ISO) */
  granted: z.string().optional(),
  /** the viewers (tunnels, or "api" for POST …/control) that hold it: it is held while any does */
  holders: z.array(z.string()),
  /** the browser it was taken on */
  gridId: z.string().optional(),
});

export type Episode = z.infer<typeof storedEpisode>;

/** What a result carries while control applies, and once after an unsaid hand-back. */
export type ControlNotice = {
  state: 'requested' | 'held' | 'handed_back';
  who: string;
  since: string;
  hint: string;
};

const storedHandBack = z.object({
  who: z.string(),
  since: z.string(),
  until: z.string(),
  ended: z.boolean().optional(),
});

export type HandBack = z.infer<typeof storedHandBack>;

/** An episode outlives no browser: a day at most, and every write renews it. */
const EPISODE_TTL_MS = 24 * 60 * 60 * 1000;
const HANDBACK_TTL_MS = 60 * 60 * 1000;

/** What await_control found: nobody in control, still held at the cap, or the hand-back with what they did. */
export type Awaited =
  | { state: 'nobody' }
  | { state: 'still'; episode: Episode }
  | { state: 'handed_back'; back: HandBack; visited: Visited };

export interface AwaitOptions {
  /** the caller went away or cancelled: the wait ends, the episode stays as it is */
  signal?: AbortSignal;
  /** told at once and every PROGRESS_MS while the person holds on */
  progress?: (episode: Episode, waitedMs: number) => void;
}

/** What Control does with the browser itself: follow the pages reached, and notice the browser gone. */
export interface ControlledBrowsers {
  follow(browser: FollowedBrowser): Promise<void>;
  unfollow(gridId: string): Promise<void>;
  /** whether the Grid still runs it (a reaped browser is released with `ended`) */
  alive(gridId: string): Promise<boolean>;
  /** the BiDi address of a recorded browser */
  bidiAddress(capabilities: Record<string, unknown> | undefined): string | undefined;
}

/**
 * Another replica's hand-back reaches a waiter here by polling the shared store: bounded, one
 * GET per interval per waiting agent, and nothing to lose when a pub/sub message would be missed.
 */
const POLL_MS = 500;
const PROGRESS_MS = 10_000;
/** How often a wait asks the Grid whether the browser is still there. */
const ALIVE_MS = 5_000;
/** How long a grant waits for the pages to be followed before it is held all the same. */
const FOLLOW_MS = 5_000;

function bounded(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export class Controls {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly changeListeners = new Set<(workspace: string) => void>();
  private readonly episodes: LiveDocuments<Episode>;
  private readonly handBacks: LiveDocuments<HandBack>;

  constructor(
    private readonly store: LiveStore,
    private readonly records: RecordStore,
    private readonly turns: Turns,
    private readonly now: () => Date = () => new Date(),
    private readonly browsers?: ControlledBrowsers,
  ) {
    this.episodes = new LiveDocuments(store, (workspace) => `control:${workspace}`, storedEpisode, EPISODE_TTL_MS);
    this.handBacks = new LiveDocuments(store, (workspace) => `handback:${workspace}`, storedHandBack, HANDBACK_TTL_MS);
  }

  async episode(workspace: string): Promise<Episode | undefined> {
    return this.episodes.get(workspace);
  }

  /**
   * A person asks for the browser. Requested at once (so no new call starts under their hands);
   * it becomes held when it takes the browser's turn — at once when no call runs, else after the
   * running call, which learns of the request in its result. Answers the episode as it stands.
   */
  async ask(workspace: string, who: string, holder: string = 'api'): Promise<Episode> {
    const record = await this.records.get(callerOfWorkspace(workspace).key);
    if (record?.gridId === undefined) {
      throw new NotFound(`Workspace ${workspace} has no browser to control; open one first (open_session).`);
    }
    const current = await this.episode(workspace);
    if (current && current.who !== who) {
      throw new Conflict(
        `${said(current.who)} already has control of this browser; they hand back first (Watch, or DELETE …/control).`,
      );
    }
    const episode: Episode = current
      ? { ...current, holders: [...new Set([...current.holders, holder])] }
      : { state: 'requested', who, since: this.now().toISOString(), holders: [holder], gridId: record.gridId };
    await this.save(workspace, episode);
    if (!current) {
      await this.grant(workspace);
    }
    return (await this.episode(workspace)) ?? episode;
  }

  /**
   * A viewer lets go (Watch, its tab closed, DELETE …/control with its viewer id); the last
   * one's leaving releases. A hand-back that names no viewer (a script's DELETE) releases all.
   */
  async withdraw(workspace: string, who: string | undefined, holder: string = 'api'): Promise<void> {
    const current = await this.episode(workspace);
    if (!current) {
      return;
    }
    if (who !== undefined && current.who !== who) {
      throw new Conflict(
        `Only ${said(current.who)}, who holds control of this browser, can hand it back; nothing changed.`,
      );
    }
    const holders = current.holders.filter((h) => h !== holder);
    if (holders.length > 0 && (who === undefined || holder !== 'api')) {
      await this.save(workspace, { ...current, holders });
      return;
    }
    await this.release(workspace, current, false);
  }

  /** The browser ended under the episode: released, with `ended`. */
  async ended(workspace: string): Promise<void> {
    const current = await this.episode(workspace);
    if (current) {
      await this.release(workspace, current, true);
    }
  }

  /** The refusal for a call that would change the browser while control applies, or undefined. */
  async refusal(workspace: string | undefined): Promise<Controlled | undefined> {
    if (workspace === undefined) {
      return undefined;
    }
    const episode = await this.episode(workspace);
    if (!episode) {
      return undefined;
    }
    return new Controlled(
      episode.state === 'held'
        ? copy.held(episode.who, episode.granted ?? episode.since)
        : copy.requested(episode.who, episode.since),
    );
  }

  /** What a result carries now: the in-flight notice, held, or an unsaid hand-back (said once). */
  async notice(workspace: string | undefined, inFlight: boolean): Promise<ControlNotice | undefined> {
    if (workspace === undefined) {
      return undefined;
    }
    const episode = await this.episode(workspace);
    if (episode) {
      const since = episode.granted ?? episode.since;
      const hint =
        episode.state === 'requested'
          ? inFlight
            ? copy.inFlight(episode.who, episode.since)
            : copy.requested(episode.who, episode.since)
          : copy.held(episode.who, since);
      return { state: episode.state, who: said(episode.who), since, hint };
    }
    const back = await this.handBacks.take(workspace);
    if (back === undefined) {
      return undefined;
    }
    return { state: 'handed_back', who: said(back.who), since: back.until, hint: copy.handedBack(back.until) };
  }

  /**
   * await_control's wait: answers at the hand-back (through any replica), at once when nobody
   * holds the browser, or with the episode as it stands after `capMs`. A hand-back nobody was
   * told of yet is answered (and so said once). A browser the Grid no longer runs ends the episode.
   */
  async awaitHandBack(workspace: string, capMs: number, options: AwaitOptions = {}): Promise<Awaited> {
    const started = Date.now();
    let told = -Infinity;
    let checked = -Infinity;
    for (;;) {
      const episode = await this.episode(workspace);
      if (!episode) {
        return this.handedBack(workspace);
      }
      const now = Date.now();
      const left = started + capMs - now;
      if (left <= 0 || options.signal?.aborted) {
        return { state: 'still', episode };
      }
      if (now - checked >= ALIVE_MS) {
        checked = now;
        if (await this.browserGone(workspace)) {
          await this.ended(workspace);
          continue;
        }
      }
      if (now - told >= PROGRESS_MS) {
        told = now;
        options.progress?.(episode, now - started);
      }
      await this.changed(workspace, Math.min(POLL_MS, left), options.signal);
    }
  }

  private async handedBack(workspace: string): Promise<Awaited> {
    const back = await this.handBacks.take(workspace);
    if (back === undefined) {
      return { state: 'nobody' };
    }
    return { state: 'handed_back', back, visited: await visitedOf(this.store, workspace) };
  }

  private async browserGone(workspace: string): Promise<boolean> {
    const gridId = (await this.records.get(callerOfWorkspace(workspace).key))?.gridId;
    if (gridId === undefined) {
      return true;
    }
    if (!this.browsers) {
      return false;
    }
    return !(await this.browsers.alive(gridId).catch(() => true));
  }

  /** Resolves at the next change of the workspace's episode in this process, or after `ms`. */
  async changed(workspace: string, ms: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const waiters = this.waiters.get(workspace) ?? new Set();
      this.waiters.set(workspace, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
      signal?.addEventListener('abort', done);
    });
  }

  /**
   * Takes the browser's turn for the person: the running call (and any queued before the
   * request) goes first; each of them after the running one is refused when its turn comes.
   */
  private async grant(workspace: string): Promise<void> {
    const key = turnKeyOf(callerOfWorkspace(workspace)) ?? '';
    let turnTaken = false;
    const granting = this.turns.run(key, async () => {
      turnTaken = true;
      const current = await this.episode(workspace);
      if (current?.state !== 'requested') {
        return;
      }
      // The pages are followed before the grant is seen: the person's hands reach the browser
      // only once it is held, so a page they reach in its first moment is listed too. A BiDi
      // handshake that hangs delays the grant by FOLLOW_MS at most (the list may then miss pages).
      await bounded(
        this.follow(workspace, current).catch(() => undefined),
        FOLLOW_MS,
      );
      const now = await this.episode(workspace);
      if (now?.state === 'requested' && now.since === current.since) {
        await this.save(workspace, { ...now, state: 'held', granted: this.now().toISOString() });
      }
    });
    granting.catch(() => undefined);
    // The grant is the turn's, not the asker's: the POST answers "requested" while a call runs,
    // and "held" when the turn was free (after following, which is quick).
    await Promise.race([granting, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
    if (turnTaken) {
      await granting.catch(() => undefined);
    }
  }

  private async release(workspace: string, episode: Episode, ended: boolean): Promise<void> {
    const back: HandBack = {
      who: episode.who,
      since: episode.granted ?? episode.since,
      until: this.now().toISOString(),
      ...(ended ? { ended: true } : {}),
    };
    await this.episodes.delete(workspace);
    await this.handBacks.put(workspace, back);
    this.wake(workspace);
    if (episode.gridId !== undefined) {
      await this.browsers?.unfollow(episode.gridId).catch(() => undefined);
    }
  }

  /** Whether this workspace's episode is still the one taken on this browser. */
  async holds(workspace: string, gridId: string): Promise<boolean> {
    return (await this.episode(workspace))?.gridId === gridId;
  }

  private async follow(workspace: string, episode: Episode): Promise<void> {
    const record = await this.records.get(callerOfWorkspace(workspace).key);
    if (!this.browsers || episode.gridId === undefined || record?.gridId !== episode.gridId) {
      return;
    }
    const bidiAddress = this.browsers.bidiAddress(record.capabilities);
    await this.browsers.follow({ workspace, gridId: episode.gridId, bidiAddress });
  }

  private async save(workspace: string, episode: Episode): Promise<void> {
    await this.episodes.put(workspace, episode);
    this.wake(workspace);
  }

  /** Told of every change of an episode made through this process (another replica's is not seen). */
  onChange(listener: (workspace: string) => void): void {
    this.changeListeners.add(listener);
  }

  private wake(workspace: string): void {
    for (const listener of this.changeListeners) {
      listener(workspace);
    }
    for (const waiter of [...(this.waiters.get(workspace) ?? [])]) {
      waiter();
    }
  }
}

/** What the check reads of a pending call (live/ stays below capabilities/: the shape, not the type). */
interface ControlledCall {
  capability: { answersUnderControl(args: Record<string, unknown>): boolean };
  args: Record<string, unknown>;
  caller: { workspace?: string };
}

/** An id for a viewer that may hold control: its tunnel's, handed out with its ticket. */
export function viewerId(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * The call path's check (a precondition, read off the row's answersUnderControl): while a
 * person's Control applies, every call that would change the browser is refused; reads that
 * leave the page and window as the person left them answer.
 */
export function underControl(controls: Controls): { check(call: ControlledCall): Promise<void> } {
  return {
    async check(call) {
      if (call.capability.answersUnderControl(call.args)) {
        return;
      }
      const refusal = await controls.refusal(call.caller.workspace);
      if (refusal) {
        throw refusal;
      }
    },
  };
}
