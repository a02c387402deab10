import type { BidiEndpoint } from '../grid/grid.js';
import { Conflict, Controlled, NotFound } from '../errors.js';
import { callerOfWorkspace, turnKeyOf } from '../workspace/caller.js';
import type { RecordStore } from '../workspace/records.js';
import type { Turns } from '../workspace/turns.js';
import { copy, said } from './control-copy.js';
import {
  episodesIn,
  handBacksIn,
  type AwaitedHandBack,
  type ControlNotice,
  type Episode,
  type HandBack,
} from './control-episode.js';
import { EpisodeChanges } from './episode-changes.js';
import type { LiveDocuments, LiveStore } from './live-store.js';
import { visitedOf, type FollowedBrowser } from './pages.js';

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
  /** whether the Grid still runs it (a reaped browser ends the episode, handed back with `ended`) */
  alive(gridId: string): Promise<boolean>;
  /** the BiDi address of a recorded browser */
  bidiAddress(capabilities: Record<string, unknown> | undefined): BidiEndpoint | undefined;
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
  private readonly changes = new EpisodeChanges();
  private readonly episodes: LiveDocuments<Episode>;
  private readonly handBacks: LiveDocuments<HandBack>;

  constructor(
    private readonly store: LiveStore,
    private readonly records: RecordStore,
    private readonly turns: Turns,
    private readonly browsers?: ControlledBrowsers,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.episodes = episodesIn(store);
    this.handBacks = handBacksIn(store);
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
   * one's leaving hands back. A hand-back that names no viewer (a script's DELETE) hands back for all.
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
    await this.handBack(workspace, current, false);
  }

  /** The browser ended under the episode: handed back, with `ended`. */
  async ended(workspace: string): Promise<void> {
    const current = await this.episode(workspace);
    if (current) {
      await this.handBack(workspace, current, true);
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
  async awaitHandBack(workspace: string, capMs: number, options: AwaitOptions = {}): Promise<AwaitedHandBack> {
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
      await this.changes.next(workspace, Math.min(POLL_MS, left), options.signal);
    }
  }

  private async handedBack(workspace: string): Promise<AwaitedHandBack> {
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

  private async handBack(workspace: string, episode: Episode, ended: boolean): Promise<void> {
    const back: HandBack = {
      who: episode.who,
      since: episode.granted ?? episode.since,
      until: this.now().toISOString(),
      ...(ended ? { ended: true } : {}),
    };
    await this.episodes.delete(workspace);
    await this.handBacks.put(workspace, back);
    this.changes.tell(workspace);
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
    this.changes.tell(workspace);
  }

  /** Told of every change of an episode made through this process (another replica's is not seen). */
  onChange(listener: (workspace: string) => void): void {
    this.changes.onChange(listener);
  }
}
