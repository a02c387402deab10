import { z } from 'zod';
import { isUsable, rejectedLine, unusableReason } from './origins.js';
import { sourceKind, type ListedSecret, type SecretSource, type SourceKind } from './source.js';

/** A secret as a caller sees it in the listing (list_secrets, secret://secrets): everything about it except a value. */
export const secretEntry = z.object({
  name: z.string(),
  keys: z.array(z.string()).describe('what write can type: {name, key}'),
  description: z.string().nullable(),
  allowed_urls: z.array(z.string()).describe('the origins it may be typed on (scheme://host:port, exact)'),
  restricted: z.boolean().describe('false: its owner declared no allowed URLs, so it may be typed on any page'),
  usable: z.boolean(),
  problem: z.string().optional().describe('why it cannot be used, and who fixes it'),
  allowed_urls_rejected: z
    .array(rejectedLine)
    .optional()
    .describe('declaration lines refused (by number: a line is never quoted)'),
  source: sourceKind,
  location: z.string().describe('the directory, or namespace/name, it comes from'),
  workspace: z.string().nullable().describe('the one workspace it is scoped to; null: every workspace'),
  shadows: z
    .array(z.object({ source: sourceKind, location: z.string() }))
    .optional()
    .describe('same-named secrets later in the search order, hidden by this one'),
});

export const secretListing = z.object({
  secrets: z.array(secretEntry),
  sources: z
    .array(z.object({ source: sourceKind, location: z.string(), problem: z.string().optional() }))
    .describe('where secrets are looked for, in order; problem: why one answered nothing'),
});

export type SecretEntry = z.infer<typeof secretEntry>;
export type SecretListing = z.infer<typeof secretListing>;
export type SourceStatus = SecretListing['sources'][number];

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
