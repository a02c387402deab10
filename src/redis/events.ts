import type { Redis } from 'ioredis';
import { auditEvent, LocalEventBus, MAX_HISTORY, type AuditEvent, type EventBus } from '../events/events.js';
import type { RedisConnection } from './connection.js';
import { EVENTS_CHANNEL, EVENTS_KEY } from './keys.js';

/**
 * The audit events shared by every replica through the Redis they already share: a capped
 * list for the history, pub/sub for live delivery. A connection that subscribes can do
 * nothing else, so it is a second one of its own; ioredis resubscribes it after a reconnect.
 * This replica's own events reach its streams the same way as everyone's, through Redis: one
 * order for all, and a Redis that is away loses the event here as it does everywhere.
 */
export class RedisEventBus implements EventBus {
  private readonly fanout = new LocalEventBus();

  private constructor(
    private readonly connection: RedisConnection,
    private readonly subscriber: Redis,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      const event = channel === EVENTS_CHANNEL ? parsed(message) : undefined;
      if (event) {
        this.fanout.deliver(event);
      }
    });
  }

  static async open(connection: RedisConnection): Promise<RedisEventBus> {
    const subscriber = connection.client.duplicate();
    // Its failures are the main connection's too, which says them; without a listener ioredis prints each one.
    subscriber.on('error', () => undefined);
    try {
      await connection.call(async () => {
        await subscriber.connect();
        await subscriber.subscribe(EVENTS_CHANNEL);
      });
    } catch (err) {
      subscriber.disconnect();
      throw err;
    }
    return new RedisEventBus(connection, subscriber);
  }

  async publish(event: AuditEvent): Promise<void> {
    const json = JSON.stringify(event);
    await this.connection.call((redis) =>
      redis
        .multi()
        .lpush(EVENTS_KEY, json)
        .ltrim(EVENTS_KEY, 0, MAX_HISTORY - 1)
        .publish(EVENTS_CHANNEL, json)
        .exec(),
    );
  }

  async recent(limit: number): Promise<AuditEvent[]> {
    const raw = await this.connection.call((redis) => redis.lrange(EVENTS_KEY, 0, Math.min(limit, MAX_HISTORY) - 1));
    return raw.flatMap((json) => parsed(json) ?? []);
  }

  subscribe(listener: (event: AuditEvent) => void): () => void {
    return this.fanout.subscribe(listener);
  }

  async close(): Promise<void> {
    await this.fanout.close();
    try {
      await this.subscriber.quit();
    } catch {
      this.subscriber.disconnect();
    }
  }
}

/** An entry another version (or anything else) wrote in a shape this one does not know is skipped, not served. */
function parsed(json: string): AuditEvent | undefined {
  try {
    const checked = auditEvent.safeParse(JSON.parse(json));
    return checked.success ? checked.data : undefined;
  } catch {
    return undefined;
  }
}
