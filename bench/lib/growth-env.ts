import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startEmbeddedGrid } from '../../src/embedded-grid/index.js';
import { openServer, type HttpServer } from '../../src/server.js';
import { FIXTURE_PORTS, startFixtureSite } from '../../test/fixtures/site.js';
import { startRedis } from '../../test/helpers/redis.js';
import type { Cleanup } from './cleanup.js';

/** What the growth bench works on: one Grid, the fixture site, one server in process with its admin API. */
export interface GrowthEnv {
  server: HttpServer;
  url: string;
  siteUrl: string;
  dataDir: string;
  adminToken: string;
}

/** `redis`: the server's store is a Redis of its own (Debian's redis-server), as replicas share one; else memory. */
export async function startGrowthEnv(cleanup: Cleanup, options: { redis?: boolean } = {}): Promise<GrowthEnv> {
  const site = await startFixtureSite();
  cleanup.add('fixture site', () => site.close());
  const grid = await startEmbeddedGrid({ maxSessions: 2, loopbackPorts: [FIXTURE_PORTS] });
  cleanup.add('embedded Grid', () => grid.stop());
  const dataDir = await mkdtemp(join(tmpdir(), 'selenium-flow-growth-'));
  cleanup.add('data directory', () => rm(dataDir, { recursive: true, force: true }));
  const adminToken = randomBytes(24).toString('base64url');
  const env: Record<string, string> = {
    PORT: '0',
    LOG_LEVEL: 'silent',
    FLOW_DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
  };
  if (options.redis) {
    const redis = await startRedis();
    cleanup.add('redis-server', () => redis.stop());
    env.REDIS_URL = redis.url;
  }
  const server = await openServer(loadConfig({}, env), grid.url);
  const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
  cleanup.add('HTTP server', () => server.close());
  return { server, url, siteUrl: site.url, dataDir, adminToken };
}
