import { HEX_DIGITS } from './hex-digits.js';
import { RandomPool } from './random-pool.js';

/** A pool of `size` bytes whose n-th draw fills it with the value n. */
function countingPool(size: number): { pool: RandomPool; draws: Buffer[] } {
  const draws: Buffer[] = [];
  const pool = new RandomPool(size, (bytes) => {
    draws.push(bytes);
    bytes.fill(draws.length);
  });
  return { pool, draws };
}

describe('RandomPool', () => {
  it('draws on the first reservation, not before', () => {
    const { pool, draws } = countingPool(40);
    expect(draws).toHaveLength(0);
    expect(pool.draws).toBe(0);
    expect(pool.reserve(1)).toBe(0);
    expect(pool.draws).toBe(1);
    expect(draws).toHaveLength(1);
    expect(pool.reserve(1)).toBe(1);
    expect(draws).toHaveLength(1);
  });

  it('hands out consecutive bytes of one draw, and draws again when too few are left', () => {
    const { pool, draws } = countingPool(40);
    expect(pool.reserve(16)).toBe(0);
    expect(draws).toHaveLength(1);
    expect(pool.reserve(16)).toBe(16);
    expect(draws).toHaveLength(1);
    expect(pool.bytes.subarray(0, 32)).toEqual(Buffer.alloc(32, 1));
    // 8 left: 16 more need a new draw, over the whole pool, and start at its beginning.
    expect(pool.reserve(16)).toBe(0);
    expect(draws).toHaveLength(2);
    expect(draws[1]).toBe(pool.bytes);
    expect(pool.bytes).toEqual(Buffer.alloc(40, 2));
    // Exactly what is left is taken from this draw.
    expect(pool.reserve(24)).toBe(16);
    expect(draws).toHaveLength(2);
    expect(pool.draws).toBe(2);
  });

  it('gives the whole pool at once, a new draw each time', () => {
    const { pool, draws } = countingPool(40);
    expect(pool.reserve(40)).toBe(0);
    expect(pool.reserve(40)).toBe(0);
    expect(draws).toHaveLength(2);
  });

  it('refuses a reservation it cannot give, and loses no bytes for it', () => {
    const { pool, draws } = countingPool(40);
    for (const count of [0, -1, 41, Number.NaN]) expect(() => pool.reserve(count)).toThrow(RangeError);
    expect(draws).toHaveLength(0);
    expect(pool.reserve(40)).toBe(0);
  });

  it('gives fresh random bytes by default: one draw differs from the next', () => {
    const pool = new RandomPool(32);
    pool.reserve(32);
    const first = Buffer.from(pool.bytes);
    pool.reserve(32);
    expect(pool.bytes.equals(first)).toBe(false);
    expect(new Set(pool.bytes).size).toBeGreaterThan(8);
  });

  it('maps each value below 16 to its lower-case hex digit', () => {
    expect(HEX_DIGITS.toString('latin1')).toBe('0123456789abcdef');
  });
});
