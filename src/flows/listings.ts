import type { Capability } from '../capabilities/capability.js';
import type { FlowListing } from './answers.js';
import { parseFlow } from './document.js';
import { GLOBAL_LIBRARY } from './names.js';
import type { FlowStore, StoredFlow } from './store.js';
import { asFlowTool } from './tool.js';

// Long enough to spare a directory read per call in a busy loop, short enough that an
// operator's edit shows up before anyone wonders why.
const LISTING_TTL_MS = 2000;

/** Flows read from the store at once when a listing is read again. */
const READS_AT_ONCE = 32;

/** A listing entry with what its tool's annotations need, kept out of list_flows' answer. */
type Entry = FlowListing & { steps?: { readOnly: boolean; destructive: boolean } };

/** A library's listing, and each flow's entry by name with the revision it was read at. */
interface Listing {
  at: number;
  entries: Entry[];
  read: Map<string, { revision: string; entry: Entry }>;
}

/**
 * The libraries' listings, each read whole from the store and kept a short while. Reading one
 * again parses only the flows whose text changed: a library of 1,000 flows took 400 ms to read
 * and parse whole, most of it parsing (docs/performance.md, "How cost grows").
 */
export class FlowListings {
  private readonly listings = new Map<string, Listing>();

  constructor(
    private readonly store: FlowStore,
    private readonly capabilities: readonly Capability[],
  ) {}

  /** The caller's own flows and the shared ones, by name; its own win a name both have. */
  async merged(own: string | undefined): Promise<Entry[]> {
    const shared = await this.listing(GLOBAL_LIBRARY);
    const mine = own && own !== GLOBAL_LIBRARY ? await this.listing(own) : [];
    const mineNames = new Set(mine.map((f) => f.name));
    return [...mine, ...shared.filter((f) => !mineNames.has(f.name))].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The library changed: its next listing is read from the store. */
  forget(library: string): void {
    const cached = this.listings.get(library);
    if (cached) {
      cached.at = 0;
    }
  }

  private async listing(library: string): Promise<Entry[]> {
    const cached = this.listings.get(library);
    if (cached && Date.now() - cached.at < LISTING_TTL_MS) {
      return cached.entries;
    }
    const names = await this.store.names(library);
    const read = new Map<string, { revision: string; entry: Entry }>();
    for (let i = 0; i < names.length; i += READS_AT_ONCE) {
      const batch = await Promise.all(names.slice(i, i + READS_AT_ONCE).map((name) => this.store.get(library, name)));
      for (const stored of batch) {
        if (stored) {
          const known = cached?.read.get(stored.name);
          const entry = known?.revision === stored.revision ? known.entry : this.summarise(stored);
          read.set(stored.name, { revision: stored.revision, entry });
        }
      }
    }
    const entries = [...read.values()].map((r) => r.entry);
    this.listings.set(library, { at: Date.now(), entries, read });
    return entries;
  }

  private summarise(stored: StoredFlow): Entry {
    const shared = stored.library === GLOBAL_LIBRARY;
    try {
      const document = parseFlow(stored.text, this.capabilities);
      const { readOnly, destructive } = asFlowTool(stored.name, document, shared, this.capabilities);
      return {
        name: stored.name,
        description: document.description,
        parameters: document.parameters,
        urls: document.urls,
        shared,
        steps: { readOnly, destructive },
      };
    } catch (err) {
      return { name: stored.name, shared, problem: err instanceof Error ? err.message : 'unreadable' };
    }
  }
}
