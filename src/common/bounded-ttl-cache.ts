/** One cached value and the instant it stops being returned; a new object on every set. */
export interface CacheEntry<V> {
  readonly value: V;
  readonly until: number;
}

/**
 * A per-process map whose entries end at a given instant and whose size is capped: when full, the
 * oldest entry goes first (a Map iterates in insertion order). Nothing is shared across processes,
 * and an expired entry is never returned — it is dropped when read.
 */
export class BoundedTtlCache<V> {
  private readonly entries = new Map<string, CacheEntry<V>>();

  constructor(private readonly maxEntries: number) {}

  /** `now`: a clock reading the caller already has (ms since the epoch). */
  get(key: string, now = Date.now()): V | undefined {
    return this.entry(key, now)?.value;
  }

  /**
   * The live entry itself: while holds(key, entry, t) is true, get(key, t) answers its value. Every
   * set and delete replaces or drops the entry, so a caller keeping it learns of a change at once.
   */
  entry(key: string, now = Date.now()): CacheEntry<V> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now >= entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Whether `entry` (from entry(key)) is still the cached one for `key` at `now`, unexpired. */
  holds(key: string, entry: CacheEntry<V>, now: number): boolean {
    return now < entry.until && this.entries.get(key) === entry;
  }

  /** Keeps `value` until the instant `until` (ms since the epoch); an instant already past stores nothing. */
  set(key: string, value: V, until: number): void {
    if (until <= Date.now()) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
