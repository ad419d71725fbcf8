import { Redis } from 'ioredis';
import type { McpStateStore } from './mcp-state-store.js';

// Compare-and-set that keeps the key's remaining expiry.
const CAS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 end return 0`;
// Counter whose window starts at its first increment.
const INCR = `local v = redis.call('INCRBY', KEYS[1], ARGV[1]) if v == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return {v, redis.call('PTTL', KEYS[1])}`;

/** The distributed topology's store: every replica sees the same approvals, nonces and counters. */
export class RedisStateStore implements McpStateStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'mcp:') {
    // Fail fast instead of queueing commands while Redis is away: callers answer 503, not hang.
    this.redis = new Redis(url, { lazyConnect: false, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.redis.on('error', () => undefined);
  }

  /** Commands are not queued while disconnected; wait (briefly) for a connection instead. */
  private async ready(): Promise<Redis> {
    if (this.redis.status === 'ready') return this.redis;
    if (this.redis.status === 'end' || this.redis.status === 'close') this.redis.connect().catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error('Redis is not reachable')), 2000);
      const onReady = (): void => done();
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        if (error) reject(error);
        else resolve();
      };
      this.redis.once('ready', onReady);
    });
    return this.redis;
  }

  async consumeOnce(key: string, ttlMs: number): Promise<boolean> {
    await this.ready();
    return (await this.redis.set(this.prefix + key, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.ready();
    await this.redis.set(this.prefix + key, value, 'PX', ttlMs);
  }

  async get(key: string): Promise<string | undefined> {
    await this.ready();
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }

  async compareAndSet(key: string, expected: string, next: string): Promise<boolean> {
    await this.ready();
    return (await this.redis.eval(CAS, 1, this.prefix + key, expected, next)) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.ready();
    await this.redis.del(this.prefix + key);
  }

  async increment(key: string, by: number, ttlMs: number): Promise<{ value: number; ttlMs: number }> {
    await this.ready();
    const [value, ttl] = (await this.redis.eval(INCR, 1, this.prefix + key, by, ttlMs)) as [number, number];
    return { value, ttlMs: ttl };
  }

  async ping(): Promise<void> {
    await this.ready();
    await this.redis.ping();
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
