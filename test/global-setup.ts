import type { TestProject } from 'vitest/node';
import { startEmbeddedGrid, type EmbeddedGrid } from '../src/grid/embedded.js';
import { FIXTURE_PORTS, startFixtureSite } from './fixtures/site.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the shared Grid's URL, with its credentials as userinfo (Node's fetch refuses it: use gridFetch) */
    gridUrl: string;
    siteUrl: string;
  }
}

// One Grid and one fixture site for the whole run: a Grid start costs seconds, a session well under one.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const site = await startFixtureSite();
  let grid: EmbeddedGrid;
  try {
    // The fixture sites' ports are the only ones of this host the browsers may open. The 4
    // headless slots serve every test; the one watchable slot only the live tests (docs/live.md).
    grid = await startEmbeddedGrid({ maxSessions: 4, liveViews: 1, loopbackPorts: [FIXTURE_PORTS] });
  } catch (error) {
    await site.close();
    throw error;
  }
  project.provide('gridUrl', grid.url);
  project.provide('siteUrl', site.url);
  return async () => {
    await Promise.all([grid.stop(), site.close()]);
  };
}
