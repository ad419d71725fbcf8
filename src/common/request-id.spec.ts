import { newRequestId } from './request-id.js';

// RFC 9562 §5.4: version 4, variant 10xx, lowercase hex in the 8-4-4-4-12 layout.
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newRequestId', () => {
  it('is a version 4 UUID, as crypto.randomUUID writes one', () => {
    for (let i = 0; i < 1_000; i++) expect(newRequestId()).toMatch(UUID_V4);
  });

  it('never repeats, across many draws of its pool (256 ids each)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(newRequestId());
    expect(seen.size).toBe(20_000);
  });

  it('gives strings that keep their value after the next id is written (no shared buffer behind them)', () => {
    const first = newRequestId();
    const copy = `${first}`;
    for (let i = 0; i < 300; i++) newRequestId();
    expect(first).toBe(copy);
  });

  it('spreads its random bits: every hex digit appears in every random position', () => {
    // 122 random bits: over 4 000 ids each random position takes all 16 digits (the fixed version
    // and variant positions excepted); a stuck or repeating byte of the pool would not.
    const ids = Array.from({ length: 4_000 }, () => newRequestId());
    for (let position = 0; position < 36; position++) {
      if ([8, 13, 14, 18, 19, 23].includes(position)) continue;
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    }
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });
});
