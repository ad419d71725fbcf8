import fc from 'fast-check';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { checkProperty } from '../../test/support/properties.js';
import { ProcessBudget } from './process-budget.js';

/** What a spend answers, whichever limiter: allowed or not, and every field of the result. */
async function outcome(spend: Promise<RateLimiterRes>) {
  let allowed = true;
  let res: RateLimiterRes;
  try {
    res = await spend;
  } catch (refused) {
    allowed = false;
    res = refused as RateLimiterRes;
  }
  return { allowed, ...res.toJSON() };
}

type Step = { wait: number } | { key: string; points: number } | { peek: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ wait: fc.integer({ min: 0, max: 4_000 }) }),
  fc.record({ key: fc.constantFrom('a', 'b', 'c'), points: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ peek: fc.constantFrom('a', 'b', 'c') }),
);

describe('ProcessBudget', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_700_000_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('answers every spend and peek as RateLimiterMemory does, over random sequences and clock moves', async () => {
    await checkProperty(
      'process budget = RateLimiterMemory',
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(step, { maxLength: 60 }),
        async (points, durationSec, steps) => {
          vi.setSystemTime(1_700_000_000_000);
          const ours = new ProcessBudget(points, durationSec);
          const theirs = new RateLimiterMemory({ keyPrefix: 'general', points, duration: durationSec });
          try {
            for (const s of steps) {
              if ('wait' in s) {
                vi.advanceTimersByTime(s.wait);
              } else if ('peek' in s) {
                const [a, b] = [await ours.get(s.peek), await theirs.get(s.peek)];
                expect(a?.toJSON() ?? null).toEqual(b?.toJSON() ?? null);
              } else {
                const now = ours.consumeNow(s.key, s.points);
                const expected = await outcome(theirs.consume(s.key, s.points));
                expect({ allowed: now.allowed, ...now.res.toJSON() }).toEqual(expected);
              }
            }
          } finally {
            ours.close();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('consume resolves within the budget and rejects with the result past it, as the limiter contract says', async () => {
    const budget = new ProcessBudget(2, 60);
    await expect(budget.consume('k')).resolves.toMatchObject({ remainingPoints: 1, consumedPoints: 1 });
    await expect(budget.consume('k')).resolves.toMatchObject({ remainingPoints: 0, consumedPoints: 2 });
    await expect(budget.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
    vi.advanceTimersByTime(60_000);
    await expect(budget.consume('k')).resolves.toMatchObject({ consumedPoints: 1, isFirstInDuration: true });
    budget.close();
  });
});
