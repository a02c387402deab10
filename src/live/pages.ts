import type { BidiConnection } from './bidi.js';
import type { LiveStore } from './live-store.js';
import type { BidiMonitors, Reason } from './monitor.js';

/** A page a person reached while holding Control: a top-level load or history update. */
export interface VisitedPage {
  url: string;
  title: string;
}

export interface Visited {
  pages: VisitedPage[];
  /** the oldest pages dropped to keep the list at MAX_VISITED */
  dropped: number;
}

export const MAX_VISITED = 100;
const MAX_URL_CHARS = 4000;
const MAX_TITLE_CHARS = 300;
// A page that never answers its title must not hold the list back.
const TITLE_MS = 2_000;
/** Kept as long as a hand-back is (control.ts): await_control reads it after the person lets go. */
const VISITED_TTL_MS = 24 * 60 * 60 * 1000;

const visitedKey = (workspace: string) => `visited:${workspace}`;

export const NONE_VISITED: Visited = { pages: [], dropped: 0 };

/** The pages of a workspace's latest Control episode, as the replica that followed them wrote them. */
export async function visitedOf(store: LiveStore, workspace: string): Promise<Visited> {
  const raw = await store.get(visitedKey(workspace));
  return raw === undefined ? NONE_VISITED : (JSON.parse(raw) as Visited);
}

/** The browser a Control episode follows, as its workspace record knows it. */
export interface FollowedBrowser {
  workspace: string;
  gridId: string;
  bidiAddress: string | undefined;
}

/**
 * The monitor's `control` reason: while a person holds a browser, the replica that granted it
 * follows the pages they reach over BiDi and writes the list beside the episode, where the
 * await_control of any replica reads it at the hand-back. Without BiDi the list stays empty.
 */
export class VisitedPages {
  constructor(
    private readonly monitors: BidiMonitors,
    private readonly store: LiveStore,
    /** whether the episode this browser is followed for still holds it */
    private readonly held: (workspace: string, gridId: string) => Promise<boolean>,
  ) {}

  /**
   * Starts a new list (an earlier episode's goes) and follows the browser; the list is written
   * once the browser is followed. BiDi missing leaves it unwritten, which reads as none visited.
   */
  async follow(browser: FollowedBrowser): Promise<void> {
    await this.store.delete(visitedKey(browser.workspace));
    const reason = new ControlReason(browser, this.store, () => this.held(browser.workspace, browser.gridId));
    await this.monitors.want(browser, 'control', reason).catch(() => undefined);
  }

  async unfollow(gridId: string): Promise<void> {
    await this.monitors.letGo(gridId, 'control');
  }
}

interface NavigationEvent {
  context?: string;
  url?: string;
  parent?: string | null;
}

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
    private readonly store: LiveStore,
    readonly stillWanted: () => Promise<boolean>,
  ) {}

  async start(connection: BidiConnection): Promise<void> {
    this.connection = connection;
    const tree = await connection.send('browsingContext.getTree', { maxDepth: 0 });
    for (const context of (tree.contexts as { context: string }[] | undefined) ?? []) {
      this.tops.add(context.context);
    }
    this.write();
  }

  onEvent(event: string, params: unknown): void {
    const p = params as NavigationEvent;
    if (typeof p.context !== 'string') {
      return;
    }
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

  onLost(): void {
    this.connection = undefined;
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
        const result = answer.result as { value?: unknown } | undefined;
        const [href, title] = JSON.parse(typeof result?.value === 'string' ? result.value : '[]') as unknown[];
        return href === url && typeof title === 'string' ? title.slice(0, MAX_TITLE_CHARS) : '';
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
    const written = JSON.stringify(this.visited);
    this.writes = this.writes
      .then(() => this.store.put(visitedKey(this.browser.workspace), written, VISITED_TTL_MS))
      .catch(() => undefined);
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
