// The distributed topology of the bench, as Kadu runs in production: PostgreSQL (a schema of its
// own in the shared database) and Redis (a key prefix of its own) for budgets, approvals and the
// BullMQ queue. KADU_BENCH_DATABASE_URL / KADU_BENCH_REDIS_URL override the local defaults.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { skipOrFail } from './helpers.mjs';

/**
 * A schema name and key prefix of this run's own, or undefined when PostgreSQL or Redis is not
 * reachable (the reason printed; with CI set, an error instead, as the tests do).
 */
export async function benchDistributed() {
  const distributed = {
    pgUrl: process.env.KADU_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: process.env.KADU_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    schema: `kadu_bench_${randomBytes(6).toString('hex')}`,
    prefix: `kadu-bench-${randomBytes(6).toString('hex')}:`,
  };
  try {
    const client = new pg.Client({ connectionString: distributed.pgUrl, connectionTimeoutMillis: 2000 });
    await client.connect();
    await client.end();
    const redis = new Redis(distributed.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await redis.connect();
    redis.disconnect();
    return distributed;
  } catch (error) {
    skipOrFail(
      'the distributed topology',
      `PostgreSQL and Redis (${error instanceof Error ? error.message : String(error)})`,
    );
    return undefined;
  }
}

/** Leaves nothing behind in the shared services: the bench's schema and its Redis keys. */
export async function dropDistributed({ pgUrl, redisUrl, schema, prefix }) {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}
