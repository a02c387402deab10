import { mcpSessionDigest, mcpSessionShape, type McpSession, type McpSessionStore } from '../workspace/mcp-sessions.js';
import type { RedisConnection } from './connection.js';
import { MCP_SESSION_PREFIX, MCP_SESSIONS_PREFIX } from './keys.js';

// Opens one session and ends the owner's least recently used beyond the bound, as one atomic
// step: its index forgets what expired first, so only live sessions count. Like the turns, it
// derives keys from arguments: one Redis (or a primary with replicas), not Cluster.
const OPEN = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  for _, digest in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    redis.call('DEL', ARGV[6] .. digest)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
return over
`;

// The session if this owner opened it, its idle time restarted (USE) or ended (END). ZADD XX: only
// an id already in this owner's index moves in it.
const OWNED = `
local raw = redis.call('GET', KEYS[1])
if not raw then
  return false
end
local ok, session = pcall(cjson.decode, raw)
if not ok or type(session) ~= 'table' or session.owner ~= ARGV[1] then
  return false
end
`;
const USE = `${OWNED}
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return raw
`;
const END = `${OWNED}
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[4])
return raw
`;

/** MCP sessions in the Redis the replicas share: a JSON string each, and a sorted set per owner. */
export class RedisMcpSessions implements McpSessionStore {
  private readonly ttlMs: number;

  constructor(
    private readonly connection: RedisConnection,
    ttlSeconds: number,
    private readonly perOwner: number,
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
  }

  async open(id: string, session: McpSession): Promise<void> {
    const digest = mcpSessionDigest(id);
    const keys = [MCP_SESSION_PREFIX + digest, MCP_SESSIONS_PREFIX + session.owner];
    const args = [JSON.stringify(session), this.ttlMs, this.now(), digest, this.perOwner, MCP_SESSION_PREFIX];
    await this.connection.call((c) => c.eval(OPEN, 2, ...keys, ...args));
  }

  async use(id: string, owner: string): Promise<McpSession | undefined> {
    const raw = await this.run(USE, id, owner);
    return typeof raw === 'string' ? mcpSessionShape.safeParse(JSON.parse(raw)).data : undefined;
  }

  async end(id: string, owner: string): Promise<boolean> {
    return typeof (await this.run(END, id, owner)) === 'string';
  }

  private async run(script: string, id: string, owner: string): Promise<unknown> {
    const digest = mcpSessionDigest(id);
    const keys = [MCP_SESSION_PREFIX + digest, MCP_SESSIONS_PREFIX + owner];
    return this.connection.call((c) => c.eval(script, 2, ...keys, owner, this.ttlMs, this.now(), digest));
  }
}
