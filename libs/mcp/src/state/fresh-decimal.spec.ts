import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { freshDecimal } from './fresh-decimal.js';

describe('freshDecimal', () => {
  it('writes every non-negative safe integer as String does', async () => {
    await checkProperty(
      'freshDecimal = String',
      fc.property(fc.oneof(fc.nat(1_000), fc.nat(), fc.maxSafeNat()), (n) => {
        expect(freshDecimal(n)).toBe(String(n));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps the digits at the edges of each pair (0, 9, 10, 99, 100, 101, 1000, 10^9, 2^53 − 1)', () => {
    for (const n of [
      0,
      9,
      10,
      99,
      100,
      101,
      999,
      1_000,
      1_001,
      10_000,
      100_100,
      1_000_000_000,
      Number.MAX_SAFE_INTEGER,
    ])
      expect(freshDecimal(n)).toBe(String(n));
  });

  it('leaves to String what is not a non-negative safe integer', () => {
    for (const n of [-1, -0, 1.5, 2 ** 53, Number.MAX_VALUE, Infinity, -Infinity, Number.NaN, 1e21])
      expect(freshDecimal(n)).toBe(String(n));
  });
});
