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
});
