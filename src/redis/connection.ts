import { Redis } from 'ioredis';
import { StoreUnavailable } from '../errors.js';
import { redisWhere, scrubPassword } from './url.js';

export interface RedisConnectionOptions {
  /** how long the boot waits for Redis to answer */
  connectTimeoutMs?: number;
  /**
   * a command that gets no answer in this long fails (a Redis that hangs must not hang calls).
   * Default 5 s: at 2 s, eight browsers starting at once on two cores starved a replica long
   * enough for a reply that had arrived to be timed out first (the bench saw a 503).
   */
  commandTimeoutMs?: number;
}

/**
 * One connection to the Redis the replicas share, and the one place its failures are put
 * into words. Commands never queue while Redis is away (enableOfflineQueue false, no retries
 * per request): a call fails at once with the reason (503) instead of hanging, and ioredis
 * keeps reconnecting in the background, so calls succeed again as soon as Redis is back.
 */
export class RedisConnection {
  /** Where Redis is, as host:port/db: never the URL, which may carry a password. */
  readonly where: string;
  private lastError: string | undefined;

  private constructor(
    readonly client: Redis,
    private readonly url: string,
  ) {
    this.where = redisWhere(url);
    // Without a listener ioredis prints every failed reconnect; the last one is the reason we give.
    client.on('error', (err: Error) => {
      this.lastError = this.scrub(`${err.name}: ${err.message}`);
    });
    client.on('close', () => {
      this.lastError ??= 'Redis closed the connection';
    });
    client.on('ready', () => {
      this.lastError = undefined;
    });
  }

  /**
   * Connects and pings, or stops the boot: a server that will not start is restarted (by
   * its supervisor) until Redis answers; one that started on the wrong store would never
   * be corrected, and its workspaces would be invisible to the other replicas.
   */
  static async open(url: string, options: RedisConnectionOptions = {}): Promise<RedisConnection> {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: options.connectTimeoutMs ?? 3_000,
      commandTimeout: options.commandTimeoutMs ?? 5_000,
      // Reconnect forever, at most a second apart.
      retryStrategy: (times: number) => Math.min(times * 50, 1_000),
    });
    const connection = new RedisConnection(client, url);
    try {
      await client.connect();
      await client.ping();
    } catch (err) {
      client.disconnect();
      throw new StoreUnavailable(
        `Redis is configured (REDIS_URL) but unreachable at ${connection.where} (${connection.reasonOf(err)}); ` +
          'refusing to start on in-memory workspaces. Start Redis or fix REDIS_URL (--redis-url), then start again.',
      );
    }
    return connection;
  }

  /** Runs Redis commands; any failure of Redis becomes a StoreUnavailable (503) with the reason. */
  async call<T>(fn: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await fn(this.client);
    } catch (err) {
      throw new StoreUnavailable(
        `The workspace store (Redis at ${this.where}) is unavailable (${this.reasonOf(err)}); retry once Redis is back.`,
      );
    }
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  /**
   * While disconnected, the connection error says more than "Stream isn't writeable". ioredis
   * says that too in the moment between Redis dropping the socket and its 'close' event, while
   * the status still reads 'ready' (a CI run caught it): the socket is the witness then.
   */
  private reasonOf(err: unknown): string {
    const { status, stream } = this.client;
    if (status !== 'ready' || stream?.writable === false) {
      return this.lastError ?? (status === 'ready' ? 'Redis closed the connection' : `not connected (${status})`);
    }
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return this.scrub(text);
  }

  /** Error texts can quote what they were given; the password never leaves this class. */
  private scrub(text: string): string {
    return scrubPassword(text, this.url);
  }
}
