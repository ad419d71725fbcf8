import type { McpRateLimiter, McpStateStore } from './mcp-state-store.js';
import { ProcessBudget } from './process-budget.js';

interface Entry {
  value: string;
  expiresAt: number;
}

/** The embedded topology's store: one process, so a Map with expiry is exact. */
export class InMemoryStateStore implements McpStateStore {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly budgets: ProcessBudget[] = [];

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async consumeOnce(key: string, ttlMs: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.entries.set(key, { value: '1', expiresAt: this.now() + ttlMs });
    return true;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  async compareAndSet(key: string, expected: string, next: string): Promise<boolean> {
    const entry = this.live(key);
    if (!entry || entry.value !== expected) return false;
    entry.value = next;
    return true;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async increment(key: string, by: number, ttlMs: number): Promise<{ value: number; ttlMs: number }> {
    let entry = this.live(key);
    if (!entry) {
      entry = { value: '0', expiresAt: this.now() + ttlMs };
      this.entries.set(key, entry);
    }
    entry.value = String(Number(entry.value) + by);
    return { value: Number(entry.value), ttlMs: entry.expiresAt - this.now() };
  }

  limiter(name: string, points: number, durationSec: number): McpRateLimiter {
    // RateLimiterMemory's answers without its Promise per spend (process-budget.ts); one per name, as before.
    const budget = new ProcessBudget(points, durationSec);
    this.budgets.push(budget);
    return budget;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const budget of this.budgets) budget.close();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
