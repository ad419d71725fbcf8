import { BoundedTtlCache } from './bounded-ttl-cache.js';

describe('BoundedTtlCache', () => {
  afterEach(() => vi.useRealTimers());

  it('returns an entry until its instant and never from that instant on', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const cache = new BoundedTtlCache<string>(10);
    cache.set('a', 'A', 1_005_000);
    vi.setSystemTime(1_004_999);
    expect(cache.get('a')).toBe('A');
    vi.setSystemTime(1_005_000);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stores nothing whose instant is already past', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const cache = new BoundedTtlCache<string>(10);
    cache.set('a', 'A', 1_000_000);
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps at most its size, dropping the oldest entry first', () => {
    const cache = new BoundedTtlCache<number>(3);
    const until = Date.now() + 60_000;
    for (let i = 0; i < 5; i++) cache.set(`k${i}`, i, until);
    expect(cache.size).toBe(3);
    expect([0, 1, 2, 3, 4].map((i) => cache.get(`k${i}`))).toEqual([undefined, undefined, 2, 3, 4]);
  });

  it('forgets a deleted entry', () => {
    const cache = new BoundedTtlCache<number>(3);
    cache.set('a', 1, Date.now() + 60_000);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('says an entry it gave out holds until it is replaced, dropped, evicted or expired', () => {
    const cache = new BoundedTtlCache<string>(2);
    const now = 1_000_000;
    const entries = () => ['a', 'b'].map((key) => [key, cache.entry(key, now)!] as const);
    cache.set('a', 'A', Date.now() + 60_000);
    cache.set('b', 'B', Date.now() + 60_000);
    const [[, a], [, b]] = entries();
    expect(cache.holds('a', a, now)).toBe(true);
    expect(cache.holds('a', a, a.until)).toBe(false);
    cache.set('a', 'A', a.until);
    expect(cache.holds('a', a, now)).toBe(false);
    cache.delete('b');
    expect(cache.holds('b', b, now)).toBe(false);
    cache.set('b', 'B', Date.now() + 60_000);
    const [[, a2], [, b2]] = entries();
    cache.set('c', 'C', Date.now() + 60_000);
    expect(cache.holds('a', a2, now)).toBe(false);
    expect(cache.holds('b', b2, now)).toBe(true);
    cache.clear();
    expect(cache.holds('b', b2, now)).toBe(false);
  });
});
