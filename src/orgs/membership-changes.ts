import { Logger } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';
import { createRedis, type RedisConnection, type RedisTopology } from '@kobana/nest-mcp/redis';

/** A member whose standing changed: every replica drops what it cached of them. `null`: forget everyone. */
export type MemberChanged = { org: string; email: string } | null;

/**
 * Carries "this member changed" between the replicas of one deployment, so that a role change or
 * a removal made through one replica holds on every replica's next request instead of up to
 * MEMBERSHIP_MAX_AGE_MS later. Best effort: when the channel is away the cache's age stays the bound.
 */
export interface MembershipChanges {
  /** Resolves once sent (or once it is known it could not be: never rejects). */
  publish(org: string, email: string): Promise<void>;
  /** Once resolved (or timed out), changes published afterwards reach `listener`. */
  subscribe(listener: (change: MemberChanged) => void): Promise<void>;
  close(): Promise<void>;
}

export const MEMBERSHIP_CHANGES = Symbol('MEMBERSHIP_CHANGES');

/**
 * Redis pub/sub on `<prefix>members:changed` (the deployment's key prefix), one subscriber
 * connection per process. After the subscriber reconnects, changes published meanwhile may have
 * been missed, so the listener is told to forget everyone.
 */
export class RedisMembershipChanges implements MembershipChanges {
  private readonly logger = new Logger('MembershipChanges');
  private readonly channel: string;
  private readonly publisher: RedisConnection;
  private subscriber?: RedisConnection;

  constructor(
    private readonly target: string | RedisTopology,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.channel = `${prefix}members:changed`;
    // No offline queue: a publish while Redis is away fails at once and the age bound holds.
    this.publisher = createRedis(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.publisher.on('error', () => undefined);
  }

  async publish(org: string, email: string): Promise<void> {
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ org, email }));
    } catch (error) {
      this.logger.warn(
        `a member change was not sent to the other replicas (they see it within the cache's age): ${describeValue(error)}`,
      );
    }
  }

  async subscribe(listener: (change: MemberChanged) => void): Promise<void> {
    const subscriber = createRedis(this.target, {
      maxRetriesPerRequest: null,
      connectTimeout: this.timeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    let connections = 0;
    subscriber.on('ready', () => {
      if (++connections > 1) listener(null);
    });
    subscriber.on('message', (_channel: string, message: string) => {
      const change = parse(message);
      if (change) listener(change);
    });
    // Queued until connected (and renewed on every reconnection); start-up waits for it within the bound.
    const subscribed = subscriber.subscribe(this.channel);
    const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), this.timeoutMs).unref());
    const outcome = await Promise.race([subscribed.then(() => 'ok' as const), timer]).catch(() => 'late' as const);
    if (outcome === 'late') this.logger.warn('not yet subscribed to member changes: other replicas may be heard late');
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.publisher.disconnect();
  }
}

function parse(message: string): MemberChanged | undefined {
  try {
    const { org, email } = JSON.parse(message) as { org?: unknown; email?: unknown };
    return typeof org === 'string' && typeof email === 'string' ? { org, email } : undefined;
  } catch {
    return undefined;
  }
}
