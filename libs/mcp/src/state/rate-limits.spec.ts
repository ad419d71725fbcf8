import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import type { McpRateLimiter, McpStateStore } from './mcp-state-store.js';
import type { BudgetName, McpStateOptions } from './mcp-state.options.js';
import { ProcessBudget } from './process-budget.js';
import { RateLimits, rateLimitHeaders, type RateVerdict, setRateLimitHeaders } from './rate-limits.js';

/** A store whose budgets are ProcessBudgets seen through the limiter contract only (not instances of it). */
function storeOf(wrap: boolean): { store: McpStateStore; budgets: ProcessBudget[] } {
  const budgets: ProcessBudget[] = [];
  const limiter = (_name: string, points: number, durationSec: number): McpRateLimiter => {
    const budget = new ProcessBudget(points, durationSec);
    budgets.push(budget);
    if (!wrap) return budget;
    return {
      consume: (key, spent) => budget.consume(key, spent),
      get: (key) => budget.get(key),
      consumeNow: (key, spent) => budget.consumeNow(key, spent),
    };
  };
  return { store: { limiter } as unknown as McpStateStore, budgets };
}

/** RateLimits over either store, and the refusals its listeners heard. */
function limitsOf(wrap: boolean, options: McpStateOptions) {
  const { store, budgets } = storeOf(wrap);
  const limits = new RateLimits(store, options);
  const refused: BudgetName[] = [];
  limits.onRefusal((name) => refused.push(name));
  return { limits, refused, close: () => budgets.forEach((b) => b.close()) };
}

type Step = { wait: number } | { budget: BudgetName; key: string; points: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ wait: fc.integer({ min: 0, max: 4_000 }) }),
  fc.record({
    budget: fc.constantFrom<BudgetName>('general', 'writes'),
    key: fc.constantFrom('a', 'b'),
    points: fc.integer({ min: 1, max: 3 }),
  }),
);

const verdictArb: fc.Arbitrary<RateVerdict> = fc.record({
  allowed: fc.boolean(),
  limit: fc.nat(100_000),
  // Beyond the budgets a store keeps in practice too: the bench's are 10^9 (fresh-decimal.ts).
  remaining: fc.oneof(fc.nat(100_000), fc.maxSafeNat()),
  resetSec: fc.integer({ min: 1, max: 100_000 }),
});

describe('RateLimits.consumeNow on in-process budgets', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_700_000_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('answers every spend as the limiter contract path does: verdicts, refusals heard, over clock moves', async () => {
    await checkProperty(
      'RateLimits.consumeNow: ProcessBudget.verdictNow = consumeNow + verdict',
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(step, { maxLength: 60 }),
        (points, durationSec, steps) => {
          vi.setSystemTime(1_700_000_000_000);
          const budgets = { general: { points, durationSec }, writes: { points: points + 1, durationSec } };
          const direct = limitsOf(false, { rateLimits: budgets });
          const contract = limitsOf(true, { rateLimits: budgets });
          try {
            for (const s of steps) {
              if ('wait' in s) vi.advanceTimersByTime(s.wait);
              else
                expect(direct.limits.consumeNow(s.budget, s.key, s.points)).toEqual(
                  contract.limits.consumeNow(s.budget, s.key, s.points),
                );
            }
            expect(direct.refused).toEqual(contract.refused);
          } finally {
            direct.close();
            contract.close();
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('setRateLimitHeaders', () => {
  it('sets what rateLimitHeaders lists: the same names and values, in the same order', async () => {
    await checkProperty(
      'setRateLimitHeaders = rateLimitHeaders',
      fc.property(verdictArb, (verdict) => {
        const set: [string, string][] = [];
        setRateLimitHeaders({ setHeader: (name, value) => set.push([name, value]) }, verdict);
        expect(set).toEqual(Object.entries(rateLimitHeaders(verdict)));
      }),
      { numRuns: 300 },
    );
  });

  it("sets the verdict's numbers in decimal, and Retry-After only when refused", async () => {
    await checkProperty(
      'setRateLimitHeaders values',
      fc.property(verdictArb, (verdict) => {
        const set = new Map<string, string>();
        setRateLimitHeaders({ setHeader: (name, value) => set.set(name, value) }, verdict);
        expect(Object.fromEntries(set)).toEqual({
          'RateLimit-Limit': String(verdict.limit),
          'RateLimit-Remaining': String(verdict.remaining),
          'RateLimit-Reset': String(verdict.resetSec),
          ...(verdict.allowed ? {} : { 'Retry-After': String(verdict.resetSec) }),
        });
      }),
      { numRuns: 300 },
    );
  });
});
