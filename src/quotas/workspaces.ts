import { QuotaExceeded } from '../errors.js';

/** How a claim went: the name was the owner's already, it is now, or the owner's set is full. */
export type ClaimAnswer = 'held' | 'added' | 'full';

/**
 * The workspace names each owner (a Principal's id) has claimed, each with when a request last
 * named it. `claim` checks and adds in one step (in Redis, one script), so two new names racing
 * for an owner's last place never both get it.
 */
export interface WorkspaceClaims {
  /** adds the name (or marks it named now), unless it is new and the owner holds `most` already */
  claim(owner: string, workspace: string, most: number, now: number): Promise<ClaimAnswer>;
  members(owner: string): Promise<string[]>;
  /** the names no request has named since `before` (epoch ms) */
  idle(owner: string, before: number): Promise<string[]>;
  release(owner: string, workspaces: readonly string[]): Promise<void>;
  /** lets the name go from every owner's set (an operator deleted the workspace) */
  forget(workspace: string): Promise<void>;
}

export class MemoryWorkspaceClaims implements WorkspaceClaims {
  /** per owner, each name and when it was last named */
  private readonly owners = new Map<string, Map<string, number>>();

  async claim(owner: string, workspace: string, most: number, now: number): Promise<ClaimAnswer> {
    const names = this.owners.get(owner) ?? new Map<string, number>();
    const held = names.has(workspace);
    if (!held && names.size >= most) {
      return 'full';
    }
    this.owners.set(owner, names.set(workspace, now));
    return held ? 'held' : 'added';
  }

  async members(owner: string): Promise<string[]> {
    return [...(this.owners.get(owner)?.keys() ?? [])];
  }

  async idle(owner: string, before: number): Promise<string[]> {
    return [...(this.owners.get(owner) ?? [])].filter(([, at]) => at < before).map(([name]) => name);
  }

  async release(owner: string, workspaces: readonly string[]): Promise<void> {
    const names = this.owners.get(owner);
    for (const workspace of workspaces) {
      names?.delete(workspace);
    }
    if (names?.size === 0) {
      this.owners.delete(owner);
    }
  }

  async forget(workspace: string): Promise<void> {
    for (const owner of [...this.owners.keys()]) {
      await this.release(owner, [workspace]);
    }
  }
}

/**
 * A name named this recently is never let go, whether it holds anything yet or not: the calls
 * that will make its record or directory may still be running (the longest, a flow run, is
 * bounded by FLOW_RUN_TIMEOUT, 300 s by default), and letting it go then would let racing new
 * names past the quota.
 */
export const CLAIM_GRACE_MS = 10 * 60_000;

/** How many of a full owner's names a refusal quotes, so it stays one readable sentence. */
const NAMES_QUOTED = 5;

/**
 * WORKSPACES_PER_TOKEN: each token (all token-less callers together, as for BROWSERS_PER_CALLER)
 * names at most so many workspaces. A name is claimed the first time a request names it (every
 * workspace directory and record starts with such a request); when the set is full, the names
 * that hold nothing (no record, no directory: deleted by an operator, or never used) and that no
 * request named for CLAIM_GRACE_MS are let go first, as BROWSERS_PER_CALLER lets go of browsers
 * the Grid reaped.
 */
export class WorkspacesPerToken {
  constructor(
    private readonly claims: WorkspaceClaims,
    readonly most: number,
    /** for each name, whether it still holds something: a record or a directory */
    private readonly holds: (workspaces: readonly string[]) => Promise<boolean[]>,
  ) {}

  /** An operator deleted the workspace: its place is free at once, whoever named it. */
  async forget(workspace: string): Promise<void> {
    await this.claims.forget(workspace);
  }

  /** Lets the request through, or refuses it with a 409 naming the limit and how to free a place. */
  async admit(owner: string, workspace: string, now = Date.now()): Promise<void> {
    if ((await this.claims.claim(owner, workspace, this.most, now)) !== 'full') {
      return;
    }
    const idle = await this.claims.idle(owner, now - CLAIM_GRACE_MS);
    const holding = await this.holds(idle);
    const empty = idle.filter((_, i) => !holding[i]);
    if (empty.length > 0) {
      await this.claims.release(owner, empty);
      if ((await this.claims.claim(owner, workspace, this.most, now)) !== 'full') {
        return;
      }
    }
    const kept = (await this.claims.members(owner)).sort();
    const some = kept.slice(0, NAMES_QUOTED).join(', ') + (kept.length > NAMES_QUOTED ? ', …' : '');
    throw new QuotaExceeded(
      `This token already keeps ${kept.length} workspaces (${some}), the most WORKSPACES_PER_TOKEN (${this.most}) allows; use one of them, or ask an operator to delete ones it no longer needs on the admin page, then call again.`,
    );
  }
}
