import type { BidiEndpoint } from '../grid/grid.js';
import { z } from 'zod';
import type { BidiConnection } from './monitor/bidi.js';
import { LiveDocuments, type LiveStore } from './live-store.js';
import type { BidiMonitors, Reason } from './monitor/monitor.js';

/** A page a person reached while holding Control: a top-level load or history update. */
const visitedPage = z.object({ url: z.string(), title: z.string() });

const visited = z.object({
  pages: z.array(visitedPage),
  /** the oldest pages dropped to keep the list at MAX_VISITED */
  dropped: z.number(),
  /** why the pages stopped being followed before the hand-back: the list ends there */
  stopped: z.string().optional(),
});

export type VisitedPage = z.infer<typeof visitedPage>;
export type Visited = z.infer<typeof visited>;

export const MAX_VISITED = 100;
const MAX_URL_CHARS = 4000;
const MAX_TITLE_CHARS = 300;
// A page that never answers its title must not hold the list back.
const TITLE_MS = 2_000;
/** Kept as long as a hand-back is (control.ts): await_control reads it after the person lets go. */
const VISITED_TTL_MS = 24 * 60 * 60 * 1000;

export const NONE_VISITED: Visited = { pages: [], dropped: 0 };

function visitedLists(store: LiveStore): LiveDocuments<Visited> {
  return new LiveDocuments(store, (workspace) => `visited:${workspace}`, visited, VISITED_TTL_MS);
}

/** The pages of a workspace's latest Control episode, as the replica that followed them wrote them. */
export async function visitedOf(store: LiveStore, workspace: string): Promise<Visited> {
  return (await visitedLists(store).get(workspace)) ?? NONE_VISITED;
}

/** The browser a Control episode follows, as its workspace record knows it. */
export interface FollowedBrowser {
  workspace: string;
  gridId: string;
  bidiAddress: BidiEndpoint | undefined;
}

/**
 * The monitor's `control` reason: while a person holds a browser, the replica that granted it
 * follows the pages they reach over BiDi and writes the list beside the episode, where the
 * await_control of any replica reads it at the hand-back. Without BiDi the list stays empty.
 */
export class VisitedPages {
  private readonly lists: LiveDocuments<Visited>;

  constructor(
    private readonly monitors: BidiMonitors,
    store: LiveStore,
    /** whether the episode this browser is followed for still holds it */
    private readonly held: (workspace: string, gridId: string) => Promise<boolean>,
  ) {
    this.lists = visitedLists(store);
  }

  /**
   * Starts a new list (an earlier episode's goes) and follows the browser; the list is written
   * once the browser is followed. BiDi missing leaves it unwritten, which reads as none visited.
   */
  async follow(browser: FollowedBrowser): Promise<void> {
    await this.lists.delete(browser.workspace);
    const reason = new ControlReason(browser, this.lists, () => this.held(browser.workspace, browser.gridId));
    await this.monitors.want(browser, 'control', reason).catch(() => undefined);
  }

  async unfollow(gridId: string): Promise<void> {
    await this.monitors.letGo(gridId, 'control');
  }
}

/** What the control reason reads of a browsingContext event (contextCreated, load, historyUpdated). */
const navigationEvent = z.object({
  context: z.string(),
  url: z.string().optional(),
  parent: z.string().nullish(),
});

const contextTree = z.object({ contexts: z.array(z.object({ context: z.string() })).optional() });

/** script.evaluate's answer to `JSON.stringify([location.href, document.title])`. */
const evaluatedString = z.object({ result: z.object({ value: z.string() }) });
const hrefAndTitle = z.tuple([z.string(), z.string()]);

class ControlReason implements Reason {
  readonly events = [
    'browsingContext.contextCreated',
    'browsingContext.load',
    'browsingContext.historyUpdated',
  ] as const;
  private readonly tops = new Set<string>();
  private readonly visited: Visited = { pages: [], dropped: 0 };
  private connection: BidiConnection | undefined;
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly browser: FollowedBrowser,
    private readonly lists: LiveDocuments<Visited>,
    readonly stillWanted: () => Promise<boolean>,
  ) {}

  async start(connection: BidiConnection): Promise<void> {
    this.connection = connection;
    const tree = contextTree.parse(await connection.send('browsingContext.getTree', { maxDepth: 0 }));
    for (const context of tree.contexts ?? []) {
      this.tops.add(context.context);
    }
    this.write();
  }

  onEvent(event: string, params: unknown): void {
    const parsed = navigationEvent.safeParse(params);
    if (!parsed.success) {
      return;
    }
    const p = parsed.data;
    if (event === 'browsingContext.contextCreated') {
      if (p.parent === null || p.parent === undefined) {
        this.tops.add(p.context);
      }
      return;
    }
    // A frame's load is not a page; about:blank and data: are no page a person went to.
    if (!this.tops.has(p.context) || typeof p.url !== 'string' || !/^(https?|file):/.test(p.url)) {
      return;
    }
    const page = { url: withoutUserinfo(p.url).slice(0, MAX_URL_CHARS), title: '' };
    // Listed at once, in the order reached; its title follows when the page answers.
    if (this.add(page)) {
      void this.titleOf(p.context, p.url).then((title) => {
        page.title = title;
        this.write();
      });
    }
  }

  onLost(why?: string): void {
    this.connection = undefined;
    if (why !== undefined) {
      this.visited.stopped = `Pages stopped being followed at ${new Date().toISOString().slice(11, 16)} UTC: ${why}; visited lists those reached before.`;
      this.write();
    }
  }

  /** The page's title, if it is still on `url` when asked ('' once the person moved on). */
  private async titleOf(context: string, url: string): Promise<string> {
    const connection = this.connection;
    if (!connection) {
      return '';
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(''), TITLE_MS);
    });
    const asked = connection
      .send('script.evaluate', {
        expression: 'JSON.stringify([location.href, document.title])',
        target: { context },
        awaitPromise: false,
      })
      .then((answer) => {
        const [href, title] = hrefAndTitle.parse(JSON.parse(evaluatedString.parse(answer).result.value));
        return href === url ? title.slice(0, MAX_TITLE_CHARS) : '';
      })
      .catch(() => '');
    const title = await Promise.race([asked, late]);
    clearTimeout(timer);
    return title;
  }

  /** False for the same page again (a history update after its load, a reload). */
  private add(page: VisitedPage): boolean {
    const { pages } = this.visited;
    if (pages[pages.length - 1]?.url === page.url) {
      return false;
    }
    pages.push(page);
    if (pages.length > MAX_VISITED) {
      pages.shift();
      this.visited.dropped += 1;
    }
    this.write();
    return true;
  }

  private write(): void {
    this.writes = this.writes.then(() => this.lists.put(this.browser.workspace, this.visited)).catch(() => undefined);
  }
}

function withoutUserinfo(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}
