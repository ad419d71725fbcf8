import { createRedis, type RedisConnection, type RedisTopology, topologyOf } from '../redis-client/redis-topology.js';
import type { SubscriptionEvent } from '../protocol/index.js';
import { EventBusUnavailable, type McpEventBus } from './mcp-event-bus.js';

export interface RedisEventBusOptions {
  /** Bound in ms on a publish, connecting included (default 3000): past it EventBusUnavailable. */
  timeoutMs?: number;
}

/**
 * The distributed bus: one Redis pub/sub channel (`<prefix>events`) per deployment. Each process
 * holds one subscriber connection whatever its number of listen streams and fans events out in
 * memory; Redis keeps the order of one publisher's messages. Any topology (redis-topology.ts); after
 * a Sentinel failover the subscriber reconnects to the new primary. In Redis Cluster the channel is
 * sharded (SPUBLISH/SSUBSCRIBE, Redis 7): a keyless PUBLISH goes to whichever node the client picks
 * and reaches the others over the cluster bus, so two events of one publisher could arrive swapped
 * (the contract spec caught it); a shard channel lives in one slot, on one primary, in order.
 */
export class RedisEventBus implements McpEventBus {
  readonly shared = true;
  private readonly channel: string;
  private readonly timeoutMs: number;
  private readonly publisher: RedisConnection;
  private subscriber?: Promise<RedisConnection>;
  private readonly listeners = new Set<(event: SubscriptionEvent) => void>();
  private readonly sharded: boolean;

  constructor(
    private readonly target: string | RedisTopology,
    prefix = 'mcp:',
    options: RedisEventBusOptions = {},
  ) {
    this.channel = `${prefix}events`;
    this.sharded = topologyOf(target).mode === 'cluster';
    this.timeoutMs = options.timeoutMs ?? 3000;
    // As the state store: no queueing while Redis is away, so a publish answers within the bound.
    this.publisher = createRedis(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: this.timeoutMs,
      commandTimeout: this.timeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.publisher.on('error', () => undefined);
  }

  async publish(event: SubscriptionEvent): Promise<void> {
    try {
      if (this.publisher.status !== 'ready') await this.connected(this.publisher);
      const message = JSON.stringify(event);
      if (this.sharded) await this.publisher.spublish(this.channel, message);
      else await this.publisher.publish(this.channel, message);
    } catch (error) {
      throw new EventBusUnavailable(error);
    }
  }

  async subscribe(listener: (event: SubscriptionEvent) => void): Promise<() => void> {
    this.subscriber ??= this.openSubscriber();
    await this.subscriber;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const subscriber = await this.subscriber?.catch(() => undefined);
    subscriber?.disconnect();
    this.publisher.disconnect();
  }

  private async openSubscriber(): Promise<RedisConnection> {
    // Reconnects forever and re-subscribes by itself (ioredis autoResubscribe): a Redis restart
    // loses the events published meanwhile, never the streams.
    const subscriber = createRedis(
      this.target,
      {
        lazyConnect: true,
        maxRetriesPerRequest: null,
        connectTimeout: this.timeoutMs,
        retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      },
      { shardedSubscribers: this.sharded },
    );
    subscriber.on('error', () => undefined);
    subscriber.on(this.sharded ? 'smessage' : 'message', (_channel: string, message: string) => {
      let event: SubscriptionEvent;
      try {
        event = JSON.parse(message) as SubscriptionEvent;
      } catch {
        return;
      }
      for (const listener of [...this.listeners]) listener(event);
    });
    try {
      await subscriber.connect();
      if (this.sharded) await subscriber.ssubscribe(this.channel);
      else await subscriber.subscribe(this.channel);
    } catch (error) {
      subscriber.disconnect();
      this.subscriber = undefined;
      throw new EventBusUnavailable(error);
    }
    return subscriber;
  }

  /** Waits for a connection being made, within the bound. */
  private connected(redis: RedisConnection): Promise<void> {
    if (redis.status === 'end' || redis.status === 'close') redis.connect().catch(() => undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error('Redis is not reachable')), this.timeoutMs);
      const onReady = (): void => done();
      const onEnd = (): void => done(new Error('Redis is not reachable'));
      function done(error?: Error): void {
        clearTimeout(timer);
        redis.off('ready', onReady);
        redis.off('end', onEnd);
        if (error) reject(error);
        else resolve();
      }
      redis.on('ready', onReady);
      redis.on('end', onEnd);
      if (redis.status === 'ready') done();
    });
  }
}
