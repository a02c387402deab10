import type { TestProject } from 'vitest/node';
import { startEmbeddedGrid, type EmbeddedGrid } from '../src/embedded-grid/index.js';
import { FIXTURE_PORTS, startFixtureSite } from './fixtures/site.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the shared Grid's URL, with its credentials as userinfo (Node's fetch refuses it: use gridFetch) */
    gridUrl: string;
    siteUrl: string;
  }
}

interface Shared {
  gridUrl: string;
  siteUrl: string;
  stop(): Promise<void>;
}

/** The projects holding the shared Grid and site; the last one to finish stops them. */
interface Holders {
  started: Promise<Shared>;
  count: number;
}

// Each project runs its global setup, each in a module instance of its own: the one Grid hangs
// on globalThis so the Chromium and Firefox passes of one run share it.
const KEY = Symbol.for('selenium-flow.test.shared-grid');
const registry = globalThis as { [KEY]?: Holders };

// One Grid and one fixture site for the whole run: a Grid start costs seconds, a session well under one.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holders = (registry[KEY] ??= { started: startShared(), count: 0 });
  holders.count += 1;
  const shared = await holders.started;
  project.provide('gridUrl', shared.gridUrl);
  project.provide('siteUrl', shared.siteUrl);
  return async () => {
    holders.count -= 1;
    if (holders.count === 0) {
      delete registry[KEY];
      await shared.stop();
    }
  };
}

async function startShared(): Promise<Shared> {
  const site = await startFixtureSite();
  let grid: EmbeddedGrid;
  try {
    // The fixture sites' ports are the only ones of this host the browsers may open. The 4
    // headless slots serve every test; the watchable slots (one Chromium, one Firefox, each on its
    // own display) only the live tests (docs/live.md).
    grid = await startEmbeddedGrid({ maxSessions: 4, liveViews: 1, loopbackPorts: [FIXTURE_PORTS] });
  } catch (error) {
    await site.close();
    throw error;
  }
  return {
    gridUrl: grid.url,
    siteUrl: site.url,
    stop: async () => {
      await Promise.all([grid.stop(), site.close()]);
    },
  };
}
