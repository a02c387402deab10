import type { EventBus } from '../events/events.js';
import type { LiveStore } from '../live/live-store.js';
import type { NetworkLog } from '../live/monitor/network-log.js';
import type { WorkspaceClaims } from '../quotas/workspaces.js';
import type { RecordStore } from '../workspace/records.js';
import type { Turns } from '../workspace/turns.js';
import type { McpSessionStore } from '../workspace/mcp-sessions.js';
import { MCP_SESSIONS_PER_TOKEN } from '../limits.js';
import { RedisConnection } from './connection.js';
import { RedisWorkspaceClaims } from './claims.js';
import { RedisEventBus } from './events.js';
import { RedisLiveStore } from './live-store.js';
import { RedisMcpSessions } from './mcp-sessions.js';
import { RedisNetworkLog } from './network-log.js';
import { RedisRecordStore } from './record-store.js';
import { RedisTurns } from './turns.js';

/** Every store the replicas share, each behind its domain's interface, on one connection. */
export interface RedisStores {
  store: RecordStore;
  turns: Turns;
  liveStore: LiveStore;
  network: NetworkLog;
  events: EventBus;
  claims: WorkspaceClaims;
  mcpSessions: McpSessionStore;
}

/**
 * Connects (pinged now: a Redis that cannot be reached stops the boot with StoreUnavailable)
 * and builds the stores on the one connection; the events' subscriber is its duplicate.
 */
export async function openRedisStores(
  url: string,
  limits: { ttlSeconds: number; networkCaptureLimit: number },
): Promise<RedisStores> {
  const connection = await RedisConnection.open(url);
  return {
    store: new RedisRecordStore(connection, limits.ttlSeconds),
    turns: new RedisTurns(connection),
    liveStore: new RedisLiveStore(connection),
    network: new RedisNetworkLog(connection, limits.networkCaptureLimit, limits.ttlSeconds),
    events: await RedisEventBus.open(connection),
    claims: new RedisWorkspaceClaims(connection),
    mcpSessions: new RedisMcpSessions(connection, limits.ttlSeconds, MCP_SESSIONS_PER_TOKEN),
  };
}
