import { isUsable, unusableReason, type RejectedLine } from './origins.js';
import type { ListedSecret, SecretSource, SourceKind } from './source.js';

/** A secret as a caller sees it in the listing: everything about it except a value. */
export interface SecretEntry {
  name: string;
  keys: string[];
  description: string | null;
  /** the origins it may be typed on; empty and restricted false: anywhere */
  allowed_urls: string[];
  restricted: boolean;
  usable: boolean;
  /** why it cannot be used, with the fix */
  problem?: string;
  /** lines of its declaration that were refused (numbers, never the text) */
  allowed_urls_rejected?: RejectedLine[];
  source: SourceKind;
  location: string;
  /** the workspace it is scoped to; null: every workspace */
  workspace: string | null;
  /** same-named secrets further down the search order, hidden by this one */
  shadows?: { source: SourceKind; location: string }[];
}

export interface SourceStatus {
  source: SourceKind;
  location: string;
  problem?: string;
}

export interface SecretListing {
  secrets: SecretEntry[];
  sources: SourceStatus[];
}

/** A secret resolved from one snapshot: the policy to check and the owner to read from. */
export interface ResolvedSecret {
  entry: SecretEntry;
  listed: ListedSecret;
  source: SecretSource;
}

interface Snapshot {
  at: number;
  listings: { source: SecretSource; secrets: ListedSecret[]; problem?: string }[];
}

/**
 * The sources merged: first match wins, like PATH. The listing (never a value) is cached for
 * a short TTL; the leash and the owner of a name come from the same snapshot, so the policy
 * checked and the value typed belong to one secret. Values are read fresh, at typing time.
 */
export class Catalogue {
  private snapshot: Snapshot | undefined;
  private pending: Promise<Snapshot> | undefined;

  constructor(
    readonly sources: readonly SecretSource[],
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.sources.length > 0;
  }

  /** What a workspace (undefined: a caller without one) may see. */
  async list(workspace: string | undefined): Promise<SecretListing> {
    const snapshot = await this.current();
    return { secrets: [...view(snapshot, workspace).values()].map((r) => r.entry), sources: sourcesOf(snapshot) };
  }

  /**
   * Every secret of every scope, for the operator: the unscoped ones as any workspace sees
   * them, then each one scoped to a workspace (which only that workspace sees).
   */
  async everything(): Promise<SecretListing> {
    const snapshot = await this.current();
    const entries = [...view(snapshot, undefined).values()].map((r) => r.entry);
    const scopes = new Set(snapshot.listings.flatMap((l) => l.secrets.flatMap((s) => s.workspace ?? [])));
    for (const scope of [...scopes].sort()) {
      entries.push(
        ...[...view(snapshot, scope).values()].filter((r) => r.entry.workspace === scope).map((r) => r.entry),
      );
    }
    return { secrets: entries, sources: sourcesOf(snapshot) };
  }

  async resolve(workspace: string | undefined, name: string): Promise<ResolvedSecret | undefined> {
    return view(await this.current(), workspace).get(name);
  }

  /** The value, read now from the secret's owner; undefined when it is gone. */
  async read(secret: ResolvedSecret, key: string): Promise<string | undefined> {
    return secret.source.read(secret.listed, key);
  }

  private async current(): Promise<Snapshot> {
    if (this.snapshot && this.now() - this.snapshot.at < this.ttlMs) {
      return this.snapshot;
    }
    this.pending ??= this.take().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async take(): Promise<Snapshot> {
    const at = this.now();
    const listings = await Promise.all(
      this.sources.map(async (source) => {
        const listing = await source.list().catch(() => ({ secrets: [], problem: 'the source failed to list' }));
        return { source, secrets: listing.secrets, ...(listing.problem ? { problem: listing.problem } : {}) };
      }),
    );
    this.snapshot = { at, listings };
    return this.snapshot;
  }
}

function sourcesOf(snapshot: Snapshot): SourceStatus[] {
  return snapshot.listings.map((l) => ({
    source: l.source.kind,
    location: l.source.location,
    ...(l.problem ? { problem: l.problem } : {}),
  }));
}

function view(snapshot: Snapshot, workspace: string | undefined): Map<string, ResolvedSecret> {
  const byName = new Map<string, ResolvedSecret>();
  for (const { source, secrets } of snapshot.listings) {
    for (const listed of secrets) {
      if (listed.workspace !== null && listed.workspace !== workspace) {
        continue;
      }
      const winner = byName.get(listed.name);
      if (winner) {
        winner.entry.shadows = [...(winner.entry.shadows ?? []), { source: source.kind, location: listed.location }];
        continue;
      }
      byName.set(listed.name, { entry: entryOf(source.kind, listed), listed, source });
    }
  }
  return byName;
}

function entryOf(source: SourceKind, listed: ListedSecret): SecretEntry {
  const { allowed } = listed;
  const problem = unusableReason(allowed);
  return {
    name: listed.name,
    keys: [...listed.keys],
    description: listed.description,
    allowed_urls: isUsable(allowed) ? [...allowed.origins] : [],
    restricted: allowed.declared,
    usable: problem === undefined,
    ...(problem ? { problem } : {}),
    ...(allowed.rejected.length > 0 ? { allowed_urls_rejected: allowed.rejected.map((r) => ({ ...r })) } : {}),
    source,
    location: listed.location,
    workspace: listed.workspace,
  };
}
