import { HEX_DIGITS, RandomPool } from './random-pool.js';

describe('RandomPool', () => {
  it('hands out consecutive bytes of one draw, and draws again when too few are left', () => {
    const draws: Buffer[] = [];
    const pool = new RandomPool(40, (bytes) => {
      draws.push(bytes);
      bytes.fill(draws.length);
    });
    expect(draws).toHaveLength(0);
    expect(pool.take(16)).toBe(0);
    expect(pool.take(16)).toBe(16);
    expect(draws).toHaveLength(1);
    expect(pool.bytes.subarray(0, 32)).toEqual(Buffer.alloc(32, 1));
    // 8 left: 16 more need a new draw, over the whole pool, and start at its beginning.
    expect(pool.take(16)).toBe(0);
    expect(draws).toHaveLength(2);
    expect(draws[1]).toBe(pool.bytes);
    expect(pool.bytes).toEqual(Buffer.alloc(40, 2));
    // Exactly what is left is taken from this draw.
    expect(pool.take(24)).toBe(16);
    expect(draws).toHaveLength(2);
  });

  it('draws from the CSPRNG by default: bytes that differ from one draw to the next', () => {
    const pool = new RandomPool(32);
    pool.take(32);
    const first = Buffer.from(pool.bytes);
    pool.take(32);
    expect(pool.bytes.equals(first)).toBe(false);
    expect(new Set(pool.bytes).size).toBeGreaterThan(8);
  });

  it('maps each value below 16 to its lower-case hex digit', () => {
    expect(HEX_DIGITS.toString('latin1')).toBe('0123456789abcdef');
  });
});
