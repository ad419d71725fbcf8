import { randomUUID } from 'node:crypto';
import { redis, REDIS_URL, requires } from '../../test/support/requirements.js';
import { eventually } from '../../test/support/eventually.js';
import {
  REDIS_TOPOLOGIES,
  redisTools,
  startTopology,
  type StartedTopology,
} from '../../test/support/redis-topology-gate.js';
import { InMemoryStateStore } from './in-memory-state-store.js';
import type { McpStateStore } from './mcp-state-store.js';
import { RedisStateStore } from './redis-state-store.js';

/**
 * How a store's time passes in the contract: the in-memory store runs on an injected clock that the
 * test moves; Redis keeps time itself, so its expiry is awaited as a condition (real network).
 */
interface Subject {
  store: McpStateStore;
  /** Lets at least `ms` pass for the store. */
  pass(ms: number): void;
}

const SHORT = 50;
const LONG = 60_000;

/** The same contract for both implementations: atomic consume, compare-and-set, expiry, counters. */
function contract(make: () => Promise<Subject>): void {
  let s: Subject;
  beforeAll(async () => {
    s = await make();
  });
  afterAll(() => s?.store.close());

  it('consumeOnce is true exactly once, even under concurrency', async () => {
    const key = `nonce:${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 20 }, () => s.store.consumeOnce(key, LONG)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('compareAndSet moves a value once, under concurrency', async () => {
    const key = `approval:${randomUUID()}`;
    await s.store.put(key, 'approved', LONG);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => s.store.compareAndSet(key, 'approved', 'consumed')),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await s.store.get(key)).toBe('consumed');
    expect(await s.store.compareAndSet(`missing:${randomUUID()}`, 'a', 'b')).toBe(false);
  });

  it('entries and consumed nonces expire after their TTL; longer-lived ones stay', async () => {
    const key = `short:${randomUUID()}`;
    const kept = `long:${randomUUID()}`;
    await s.store.put(kept, 'kept', LONG);
    await s.store.put(key, 'v', SHORT);
    expect(await s.store.consumeOnce(`${key}:n`, SHORT)).toBe(true);
    expect(await s.store.consumeOnce(`${key}:n`, SHORT)).toBe(false);
    s.pass(SHORT + 1);
    await eventually(
      'the short entry expires',
      () => s.store.get(key),
      (v) => v === undefined,
    );
    // The nonce can be consumed again once it has expired (and only then).
    await eventually('the nonce expires', () => s.store.consumeOnce(`${key}:n`, LONG));
    expect(await s.store.consumeOnce(`${key}:n`, LONG)).toBe(false);
    expect(await s.store.get(kept)).toBe('kept');
  });

  it('compareAndSet keeps the remaining expiry', async () => {
    const key = `cas-ttl:${randomUUID()}`;
    await s.store.put(key, 'approved', SHORT);
    expect(await s.store.compareAndSet(key, 'approved', 'consumed')).toBe(true);
    s.pass(SHORT + 1);
    await eventually(
      'the swapped entry expires with the original TTL',
      () => s.store.get(key),
      (v) => v === undefined,
    );
  });

  it('counters count within their window', async () => {
    const key = `rate:${randomUUID()}`;
    expect((await s.store.increment(key, 1, LONG)).value).toBe(1);
    const second = await s.store.increment(key, 2, LONG);
    expect(second.value).toBe(3);
    expect(second.ttlMs).toBeGreaterThan(0);
    expect(second.ttlMs).toBeLessThanOrEqual(LONG);
  });

  it('counters restart after their window', async () => {
    const key = `rate:${randomUUID()}`;
    expect((await s.store.increment(key, 5, SHORT)).value).toBe(5);
    s.pass(SHORT + 1);
    // Each probe increments: a value of 1 means a fresh window started.
    await eventually(
      'a new window',
      () => s.store.increment(key, 1, LONG),
      (r) => r.value === 1,
    );
    expect((await s.store.increment(key, 1, LONG)).value).toBe(2);
  });

  it('delete removes', async () => {
    const key = `del:${randomUUID()}`;
    await s.store.put(key, 'v', LONG);
    await s.store.delete(key);
    expect(await s.store.get(key)).toBeUndefined();
  });
}

describe('McpStateStore contract: memory (injected clock)', () => {
  contract(async () => {
    let now = Date.now();
    return { store: new InMemoryStateStore(() => now), pass: (ms) => void (now += ms) };
  });
});

requires(await redis()).describe(`McpStateStore contract: Redis at ${REDIS_URL}`, () => {
  contract(async () => ({ store: new RedisStateStore(REDIS_URL, `test:${randomUUID()}:`), pass: () => undefined }));
});

// The same contract on Redis Cluster (keys spread over three primaries) and on a Sentinel-managed primary.
for (const kind of REDIS_TOPOLOGIES) {
  requires(redisTools()).describe(`McpStateStore contract: Redis ${kind} (started by the test)`, () => {
    let running: StartedTopology | undefined;
    // Registered first, so it runs after the contract's own afterAll has closed the store.
    afterAll(() => running?.stop());
    contract(async () => {
      running = await startTopology(kind);
      return { store: new RedisStateStore(running.topology, `test:${randomUUID()}:`), pass: () => undefined };
    });
  });
}
