/**
 * Where the server's state lives: in this process (memory), or in the Redis every replica
 * shares. Connected before the parts are built (createParts in parts.ts).
 */
import type { Config } from './config.js';
import { StoreUnavailable } from './errors.js';
import type { EventBus } from './events/events.js';
import { MemoryLiveStore, type LiveStore } from './live/live-store.js';
import type { NetworkLog } from './live/monitor/network-log.js';
import type { WorkspaceClaims } from './quotas/workspaces.js';
import type { McpSessionStore } from './workspace/mcp-sessions.js';
import { MemoryRecordStore, type RecordStore } from './workspace/records.js';
import { LocalTurns, type Turns } from './workspace/turns.js';
// A type only: erased, so ioredis loads only when Redis is configured.
import type * as RedisModule from './redis/index.js';

/** Where workspace records live and how calls on one browser take turns. */
export interface Backends {
  store: RecordStore;
  turns: Turns;
  /** tickets and Control episodes (docs/live.md), beside the records */
  liveStore?: LiveStore;
  /** what network capture recorded; in this process when absent */
  network?: NetworkLog;
  /** how audit events reach every replica; in this process when absent */
  events?: EventBus;
  /** the workspace names each token claimed; in this process when absent */
  claims?: WorkspaceClaims;
  /** MCP sessions; in this process when absent */
  mcpSessions?: McpSessionStore;
}

/**
 * The configured store, connected: in this process (memory), or Redis shared by replicas,
 * pinged now. A Redis that cannot be reached, or a missing ioredis package, stops the boot
 * with the reason (StoreUnavailable); it never falls back to memory.
 */
export async function connectBackends(
  config: Config,
  load: () => Promise<typeof RedisModule> = () => import('./redis/index.js'),
): Promise<Backends> {
  if (config.sessionStore === 'memory' || !config.redisUrl) {
    return memoryBackends(config);
  }
  let redis: typeof RedisModule;
  try {
    redis = await load();
  } catch (err) {
    if (isMissingIoredis(err)) {
      throw new StoreUnavailable(
        'REDIS_URL is set but the ioredis package is missing; run `npm install` (ioredis is a dependency of selenium-flow), then start again.',
      );
    }
    throw err;
  }
  return redis.openRedisStores(config.redisUrl, {
    ttlSeconds: config.sessionTtl,
    networkCaptureLimit: config.networkCaptureLimit,
  });
}

function isMissingIoredis(err: unknown): boolean {
  return (
    err instanceof Error && 'code' in err && err.code === 'ERR_MODULE_NOT_FOUND' && err.message.includes('ioredis')
  );
}

export function memoryBackends(config: Config): Backends {
  if (config.sessionStore !== 'memory') {
    throw new Error('SESSION_STORE is redis: connect it with connectBackends (or openServer / openParts) first.');
  }
  return { store: new MemoryRecordStore(config.sessionTtl), turns: new LocalTurns(), liveStore: new MemoryLiveStore() };
}
