/**
 * A per-process map whose entries end at a given instant and whose size is capped: when full, the
 * oldest entry goes first (a Map iterates in insertion order). Nothing is shared across processes,
 * and an expired entry is never returned — it is dropped when read.
 */
export class BoundedTtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() >= entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
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
