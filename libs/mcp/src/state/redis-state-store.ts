import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createRedis, type RedisConnection, type RedisTopology } from '../redis-client/redis-topology.js';
import { StoreUnavailable } from '../errors.js';
import type { McpRateLimiter, McpStateStore } from './mcp-state-store.js';

// Compare-and-set that keeps the key's remaining expiry.
const CAS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0`;
// Counter whose window starts at its first increment.
const INCR = `local v = redis.call('INCRBY', KEYS[1], ARGV[1]) if v == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return {v, redis.call('PTTL', KEYS[1])}`;

export interface RedisStateStoreOptions {
  /**
   * Bound in ms on every call, waiting for a connection included (default 3000): past it the call
   * fails with StoreUnavailable and the request answers 503, so a partition never hangs it.
   */
  timeoutMs?: number;
}

/**
 * The distributed topology's store: every replica sees the same approvals, nonces and counters.
 * Any Redis topology (a URL, or a Cluster or Sentinel one: redis-topology.ts); every command and
 * script touches one key, so none spans cluster slots.
 */
export class RedisStateStore implements McpStateStore {
  private readonly redis: RedisConnection;
  private readonly timeoutMs: number;

  constructor(
    target: string | RedisTopology,
    private readonly prefix = 'mcp:',
    options: RedisStateStoreOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 3000;
    // Fail fast instead of queueing commands while Redis is away: callers answer 503, not hang. A
    // connection that stops answering (partition) is dropped after the same bound and re-made.
    this.redis = createRedis(target, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: this.timeoutMs,
      commandTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      // Try again soon after a failure, so service resumes within a second of Redis coming back.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.redis.on('error', () => undefined);
  }

  /** Runs one command within the bound, turning any failure to reach Redis into StoreUnavailable. */
  private async run<T>(command: (redis: RedisConnection) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    try {
      const redis = await this.ready(deadline);
      return await within(command(redis), deadline - Date.now());
    } catch (error) {
      throw error instanceof StoreUnavailable ? error : new StoreUnavailable(error);
    }
  }

  /**
   * Commands are not queued while disconnected. A connection being made is waited for (until the
   * deadline); one that just failed (the client waits to retry) or fails meanwhile is an answer.
   */
  private async ready(deadline: number): Promise<RedisConnection> {
    if (this.redis.status === 'ready') return this.redis;
    if (this.redis.status === 'reconnecting') throw new StoreUnavailable('Redis is not reachable');
    if (this.redis.status === 'end' || this.redis.status === 'close') this.redis.connect().catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => done(new StoreUnavailable('Redis is not reachable')),
        Math.max(0, deadline - Date.now()),
      );
      const onReady = (): void => done();
      const onFailure = (): void => done(new StoreUnavailable('Redis is not reachable'));
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        this.redis.off('close', onFailure);
        if (error) reject(error);
        else resolve();
      };
      this.redis.once('ready', onReady);
      this.redis.once('close', onFailure);
    });
    return this.redis;
  }

  consumeOnce(key: string, ttlMs: number): Promise<boolean> {
    return this.run(async (r) => (await r.set(this.prefix + key, '1', 'PX', ttlMs, 'NX')) === 'OK');
  }

  put(key: string, value: string, ttlMs: number): Promise<void> {
    return this.run(async (r) => void (await r.set(this.prefix + key, value, 'PX', ttlMs)));
  }

  get(key: string): Promise<string | undefined> {
    return this.run(async (r) => (await r.get(this.prefix + key)) ?? undefined);
  }

  compareAndSet(key: string, expected: string, next: string): Promise<boolean> {
    return this.run(async (r) => (await r.eval(CAS, 1, this.prefix + key, expected, next)) === 1);
  }

  delete(key: string): Promise<void> {
    return this.run(async (r) => void (await r.del(this.prefix + key)));
  }

  increment(key: string, by: number, ttlMs: number): Promise<{ value: number; ttlMs: number }> {
    return this.run(async (r) => {
      const [value, ttl] = (await r.eval(INCR, 1, this.prefix + key, by, ttlMs)) as [number, number];
      return { value, ttlMs: ttl };
    });
  }

  limiter(name: string, points: number, durationSec: number): McpRateLimiter {
    // No insurance limiter: when Redis is away the limiter rejects and the caller answers 503.
    const limiter = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: `${this.prefix}rl:${name}`,
      points,
      duration: durationSec,
      rejectIfRedisNotReady: true,
    });
    // A refusal (RateLimiterRes) passes through as it is; only failing to reach Redis is rewrapped.
    const bounded = async <T>(call: () => Promise<T>): Promise<T> => {
      const deadline = Date.now() + this.timeoutMs;
      await this.ready(deadline);
      return within(call(), deadline - Date.now());
    };
    return {
      consume: (key, consumed) => bounded(() => limiter.consume(key, consumed)),
      get: (key) => bounded(() => limiter.get(key)),
    };
  }

  ping(): Promise<void> {
    return this.run(async (r) => void (await r.ping()));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** `promise`, or a StoreUnavailable once `ms` have passed without an answer. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailable(`Redis did not answer within the bound`)), Math.max(0, ms));
  });
  promise.catch(() => undefined); // it may still settle after the bound
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}
