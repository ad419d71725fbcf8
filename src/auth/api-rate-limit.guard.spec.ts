import type { ExecutionContext } from '@nestjs/common';
import { InMemoryStateStore, type McpStateStore, RateLimits } from '@kobana/nest-mcp';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { ApiError } from '../common/api-error.js';
import { ApiRateLimitGuard } from './api-rate-limit.guard.js';

/** The embedded store, or the same store seen through the limiter contract without `consumeNow` (a store that waits). */
function storeOf(waits: boolean): InMemoryStateStore | McpStateStore {
  const store = new InMemoryStateStore();
  if (!waits) return store;
  return Object.assign(Object.create(store) as InMemoryStateStore, {
    limiter: (name: string, points: number, durationSec: number) => {
      const limiter = store.limiter(name, points, durationSec);
      return { consume: limiter.consume.bind(limiter), get: limiter.get.bind(limiter) };
    },
    close: () => store.close(),
  });
}

/** What one request through the guard shows: the headers set, and its answer or refusal. */
async function through(guard: ApiRateLimitGuard, method: string, subject: string) {
  const headers: [string, string][] = [];
  const req = { method, user: { org: 'acme', subject } };
  const res = { setHeader: (name: string, value: string) => headers.push([name, value]) };
  const context = { getArgByIndex: (i: number) => [req, res][i] } as unknown as ExecutionContext;
  try {
    return { headers, passed: await guard.canActivate(context) };
  } catch (error) {
    const refusal = error as ApiError;
    return { headers, status: refusal.getStatus(), body: refusal.getResponse(), errorHeaders: refusal.headers };
  }
}

describe('ApiRateLimitGuard', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_700_000_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('answers in-process budgets in the same tick as a store that waits would: headers, 429s, budgets spent', async () => {
    await checkProperty(
      'ApiRateLimitGuard: in-process path = waiting path',
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ wait: fc.integer({ min: 0, max: 3_000 }) }),
            fc.record({ method: fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE'), subject: fc.constantFrom('a', 'b') }),
          ),
          { maxLength: 40 },
        ),
        async (steps) => {
          vi.setSystemTime(1_700_000_000_000);
          const rateLimits = { general: { points: 5, durationSec: 2 }, writes: { points: 2, durationSec: 3 } };
          const stores = [storeOf(false), storeOf(true)];
          const [now, waiting] = stores.map((store) => new ApiRateLimitGuard(new RateLimits(store, { rateLimits })));
          try {
            for (const s of steps) {
              if ('wait' in s) vi.advanceTimersByTime(s.wait);
              else expect(await through(now, s.method, s.subject)).toEqual(await through(waiting, s.method, s.subject));
            }
          } finally {
            await Promise.all(stores.map((store) => store.close()));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses past the budget with 429, the RateLimit headers and Retry-After', async () => {
    const store = new InMemoryStateStore();
    const guard = new ApiRateLimitGuard(
      new RateLimits(store, { rateLimits: { general: { points: 1, durationSec: 60 } } }),
    );
    expect((await through(guard, 'GET', 'a')).passed).toBe(true);
    const refused = await through(guard, 'GET', 'a');
    expect(refused.status).toBe(429);
    expect(refused.headers.map(([name]) => name)).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
    ]);
    expect(refused.errorHeaders).toEqual(Object.fromEntries(refused.headers));
    await store.close();
  });
});
