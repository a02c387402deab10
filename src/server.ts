import type { FastifyInstance } from 'fastify';
import type { CallDeps } from './capabilities/call.js';
import type { Config } from './config.js';
import { Grid } from './grid/grid.js';
import { buildApp } from './http/app.js';
import { MemoryRecordStore, type RecordStore } from './workspace/records.js';
import { LocalTurns } from './workspace/turns.js';
import { Workspaces } from './workspace/workspaces.js';
import { VERSION } from './version.js';

export interface Parts {
  grid: Grid;
  store: RecordStore;
  deps: CallDeps;
  close(): Promise<void>;
}

/** Wiring only: every part is built here from the config, and nothing else builds parts. */
export function createParts(config: Config, gridUrl: string): Parts {
  const grid = new Grid(gridUrl);
  const store = new MemoryRecordStore(config.sessionTtl);
  const deps: CallDeps = { workspaces: new Workspaces(grid, store), turns: new LocalTurns(), dataDir: config.dataDir };
  return { grid, store, deps, close: () => store.close() };
}

export interface HttpServer extends Parts {
  app: FastifyInstance;
}

export function createServer(config: Config, gridUrl: string): HttpServer {
  const parts = createParts(config, gridUrl);
  const app = buildApp(parts.deps, {
    version: VERSION,
    authToken: config.authToken,
    gridUrl,
    mirrorTools: config.mirrorTools === 'on',
    maxBodyBytes: config.maxBodyBytes,
    logLevel: config.logLevel,
    ready: async () => ({
      grid: await parts.grid.isReady(),
      store: await parts.store.ping().then(
        () => true,
        () => false,
      ),
    }),
    features: { flows: false, files: config.dataDir !== undefined, secrets: false, live: false },
  });
  return {
    ...parts,
    app,
    close: async () => {
      await app.close();
      await parts.close();
    },
  };
}
