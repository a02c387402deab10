import type { TestProject } from 'vitest/node';
import { startEmbeddedGrid, type EmbeddedGrid } from '../src/grid/embedded.js';
import { startFixtureSite } from './fixtures/site.js';

declare module 'vitest' {
  export interface ProvidedContext {
    gridUrl: string;
    siteUrl: string;
  }
}

// One Grid and one fixture site for the whole run: a Grid start costs seconds, a session well under one.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const site = await startFixtureSite();
  let grid: EmbeddedGrid;
  try {
    grid = await startEmbeddedGrid({ maxSessions: 4 });
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
