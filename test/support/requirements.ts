import { Redis } from 'ioredis';
import { beforeAll, describe, it } from 'vitest';

/**
 * Tests that need real infrastructure declare it here, once, instead of returning early (which
 * vitest would report as a pass). When something is missing:
 * - outside CI the block is skipped, and its name says what is missing, so the run reports it;
 * - in CI (`CI` set) the block runs and every test in it fails, saying what is missing.
 *
 *   const shared = requires(await redis());
 *   shared.describe('two replicas on one Redis', () => { ... });
 *
 * The app's copy of the gate the package's own tests use (libs/mcp/test/support/requirements.ts):
 * test infrastructure, not something an adopter imports, so the package does not export it.
 * infrastructure.ts adds the app's other requirements (PostgreSQL, Chromium) on this gate.
 */

/** Where the tests find Redis (also the distributed pass's topology). */
export const REDIS_URL = process.env.KADU_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Requirement {
  /** Set when the thing is unavailable: what is missing and why. */
  readonly missing?: string;
}

/** A URL without its credentials, to name it in a message. */
export const hide = (url: string): string => url.replace(/\/\/[^@/]*@/, '//…@');
/** The reason of a failed probe, in words. */
export const why = (error: unknown): string => (error instanceof Error ? error.message : String(error)) || 'no answer';

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
      // vitest's summary counts skipped tests without naming them: say which, and why, once each.
      if (skip) console.warn(`SKIPPED (needs ${missing}): ${name}`);
      describe.skipIf(skip)(label(name), () => {
        if (missing) beforeAll(refuse);
        body();
      });
    },
    it(name, body, timeout) {
      if (skip) console.warn(`SKIPPED (needs ${missing}): ${name}`);
      it.skipIf(skip)(label(name), () => (missing ? refuse() : body()), timeout);
    },
  };
}
