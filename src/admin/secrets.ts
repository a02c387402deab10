import type { Capability } from '../capabilities/capability.js';
import type { Files } from '../files/files.js';
import { parseFlow } from '../flows/document.js';
import { GLOBAL_LIBRARY } from '../flows/names.js';
import type { FlowStore } from '../flows/store.js';
import type { SecretEntry, Secrets } from '../secrets/index.js';
import { secretOf } from './flows.js';
import type { SecretCard, SecretsAnswer, SecretUse } from './schemas.js';
import { isWorkspaceOrStdio } from '../workspace/names.js';

/** The scan of stored flows is bounded: past this many flow files the rest are not read. */
export const MAX_SCANNED_FLOWS = 5000;

/**
 * The Secrets tab: the catalogue as cards, each with the stored flows that type it, and the
 * names flows type that no secret defines (those flows fail at that step). Read from what is
 * on disk: a step's `args.secret` names the secret and key. Never a value: the catalogue has
 * none to give.
 */
export class SecretsOverview {
  constructor(
    private readonly secrets: Secrets | undefined,
    private readonly files: Files,
    private readonly flowStore: FlowStore | undefined,
    private readonly capabilities: readonly Capability[],
  ) {}

  async answer(): Promise<SecretsAnswer> {
    const used = await this.uses();
    if (!this.secrets?.catalogue.enabled) {
      return { enabled: false, secrets: [], undefined: undefinedOf(used, new Set()), sources: [] };
    }
    const listing = await this.secrets.catalogue.everything();
    const known = new Set(listing.secrets.map((s) => s.name));
    return {
      enabled: true,
      secrets: listing.secrets.map((entry) => cardOf(entry, used.get(entry.name) ?? [])),
      undefined: undefinedOf(used, known),
      sources: listing.sources,
    };
  }

  /** Secret name → the stored flows whose steps type it, global's last. */
  private async uses(): Promise<Map<string, SecretUse[]>> {
    const found = new Map<string, SecretUse[]>();
    if (!this.flowStore) {
      return found;
    }
    const libraries = (await this.files.directories().catch((): string[] => []))
      .filter((name) => name !== GLOBAL_LIBRARY && isWorkspaceOrStdio(name))
      .sort();
    let scanned = 0;
    for (const library of [...libraries, GLOBAL_LIBRARY]) {
      for (const name of await this.flowStore.names(library).catch((): string[] => [])) {
        if (++scanned > MAX_SCANNED_FLOWS) {
          return found;
        }
        for (const [secret, use] of await this.usesIn(library, name)) {
          found.set(secret, [...(found.get(secret) ?? []), use]);
        }
      }
    }
    return found;
  }

  /** One flow's uses, by secret; a file that cannot be read types nothing (the Flows tab shows its problem). */
  private async usesIn(library: string, name: string): Promise<Map<string, SecretUse>> {
    const uses = new Map<string, SecretUse>();
    const stored = await this.flowStore?.get(library, name).catch(() => undefined);
    let steps;
    try {
      steps = stored ? parseFlow(stored.text, this.capabilities).steps : [];
    } catch {
      return uses;
    }
    for (const [index, step] of steps.entries()) {
      const secret = secretOf(step.args);
      if (!secret) {
        continue;
      }
      const use = uses.get(secret.name) ?? { library, flow: name, shared: library === GLOBAL_LIBRARY, steps: [] };
      use.steps.push({ number: index + 1, id: step.id ?? null, key: secret.key });
      uses.set(secret.name, use);
    }
    return uses;
  }
}

function cardOf(entry: SecretEntry, uses: SecretUse[]): SecretCard {
  return {
    name: entry.name,
    description: entry.description,
    keys: entry.keys,
    where: entry.restricted ? entry.allowed_urls : ['any site'],
    restricted: entry.restricted,
    usable: entry.usable,
    ...(entry.problem ? { problem: entry.problem } : {}),
    rejected_lines: entry.allowed_urls_rejected ?? [],
    source: entry.source,
    location: entry.location,
    workspace: entry.workspace,
    uses: uses.filter((u) => entry.workspace === null || u.library === entry.workspace || u.shared),
  };
}

function undefinedOf(used: Map<string, SecretUse[]>, known: Set<string>): SecretsAnswer['undefined'] {
  return [...used.entries()]
    .filter(([name]) => !known.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, uses]) => ({ name, uses }));
}
