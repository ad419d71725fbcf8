import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { beforeAll, describe, it } from 'vitest';

/**
 * Tests that need real infrastructure (Redis, PostgreSQL, Chromium) declare it here, once, instead
 * of returning early (which vitest would report as a pass). When something is missing:
 * - outside CI the block is skipped, and its name says what is missing, so the run reports it;
 * - in CI (`CI` set) the block runs and every test in it fails, saying what is missing.
 *
 *   const shared = requires(await redis());
 *   shared.describe('two replicas on one Redis', () => { ... });
 */

/** Where the tests find Redis and PostgreSQL (also the distributed pass's topology). */
export const REDIS_URL = process.env.KADU_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PG_URL = process.env.KADU_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Requirement {
  /** Set when the thing is unavailable: what is missing and why. */
  readonly missing?: string;
}

const hide = (url: string): string => url.replace(/\/\/[^@/]*@/, '//…@');
const why = (error: unknown): string => (error instanceof Error ? error.message : String(error)) || 'no answer';

/** Redis answers PING within 2 s. */
export async function redis(url = REDIS_URL): Promise<Requirement> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let cause: unknown;
  client.on('error', (error) => (cause ??= error));
  try {
    await client.connect();
    await client.ping();
    return {};
  } catch (error) {
    return { missing: `Redis at ${hide(url)} (${why(cause ?? error)})` };
  } finally {
    client.disconnect();
  }
}

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

export interface Gate {
  /** What is missing, or undefined when everything is there. */
  readonly missing?: string;
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<unknown> | void, timeout?: number): void;
}

/** A describe/it pair gated on the requirements, as the header comment says. */
export function requires(...requirements: Requirement[]): Gate {
  const missing = requirements.flatMap((r) => (r.missing ? [r.missing] : [])).join('; ') || undefined;
  const skip = missing !== undefined && !process.env.CI;
  const label = (name: string): string => (missing ? `${name} [needs ${missing}]` : name);
  const refuse = (): never => {
    throw new Error(`CI requires ${missing}, which is unavailable`);
  };
  return {
    missing,
    describe(name, body) {
      describe.skipIf(skip)(label(name), () => {
        if (missing) beforeAll(refuse);
        body();
      });
    },
    it(name, body, timeout) {
      it.skipIf(skip)(label(name), () => (missing ? refuse() : body()), timeout);
    },
  };
}
