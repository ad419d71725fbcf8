import { existsSync } from 'node:fs';
import pg from 'pg';
import { pgbouncerMissing } from '../../scripts/pgbouncer.mjs';
import { hide, type Requirement, why } from './requirements.js';

/**
 * The app's tests declare the infrastructure they need (Redis, PostgreSQL, Chromium) on one gate
 * (requirements.ts: skipped outside CI, failing in CI):
 *
 *   const shared = requires(await redis(), await postgres());
 *   shared.describe('two replicas on one Redis and one database', () => { ... });
 */
export { type Gate, redis, REDIS_URL, type Requirement, requires } from './requirements.js';

/** Where the tests find PostgreSQL (also the distributed pass's topology) and Chromium. */
export const PG_URL = process.env.KADU_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * The PostgreSQL server itself, never through a pooler: where a test holds a lock or reads what the
 * app wrote (the distributed pass may set KADU_TEST_DATABASE_URL to PgBouncer in front of it).
 */
export const PG_DIRECT_URL = process.env.KADU_TEST_DATABASE_DIRECT_URL ?? PG_URL;
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** PostgreSQL accepts a connection within 2 s. */
export async function postgres(url = PG_URL): Promise<Requirement> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return {};
  } catch (error) {
    return { missing: `PostgreSQL at ${hide(url)} (${why(error)})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A Chromium binary for playwright-core (Debian's; .ci/run installs it). */
export function chromium(path = CHROMIUM_PATH): Requirement {
  return existsSync(path) ? {} : { missing: `Chromium at ${path} (not installed: apt-get install chromium)` };
}

/** PgBouncer can be started here (Debian's package; .ci/run installs it). */
export function pgbouncer(): Requirement {
  const missing = pgbouncerMissing();
  return missing ? { missing } : {};
}
