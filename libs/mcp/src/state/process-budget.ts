import { RateLimiterRes } from 'rate-limiter-flexible';
import type { McpRateLimiter } from './mcp-state-store.js';
import type { RateVerdict } from './rate-limits.js';

interface Window {
  consumed: number;
  /** Null for a budget without a duration: it never resets (as RateLimiterMemory). */
  expiresAt: number | null;
}

/** A spend answered at once: the store's result and whether it was within the budget. */
export interface SpentNow {
  readonly allowed: boolean;
  readonly res: RateLimiterRes;
}

/**
 * The in-process topology's rate budget: rate-limiter-flexible's RateLimiterMemory (fixed window
 * per key, opened by the first spend, `points` per `durationSec`; no blocking, no even spreading)
 * with the same answers, given synchronously. RateLimiterMemory answers through a Promise (and a
 * timer per window), which made the module's rate-limit rung wait a tick on every call of an
 * embedded app (bench/RESULTS.md, issue 32); here `consumeNow` answers in the same tick, and
 * `consume`/`get` keep the McpRateLimiter contract (a rejection with the result when over).
 * process-budget.spec.ts compares both over random sequences of spends and clock moves.
 */
export class ProcessBudget implements McpRateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly points: number,
    private readonly durationSec: number,
  ) {
    // Expired windows are dropped when read; the sweep bounds what keys never seen again leave behind.
    if (durationSec > 0) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, durationSec * 1_000));
      this.sweeper.unref();
    }
  }

  consumeNow(key: string, points = 1): SpentNow {
    const { consumed, msBeforeNext, first } = this.spend(key, points);
    const res = new RateLimiterRes(Math.max(this.points - consumed, 0), msBeforeNext, consumed, first);
    return { allowed: consumed <= this.points, res };
  }

  /**
   * consumeNow's answer as RateLimits words it (its `verdict` of the result), without the
   * RateLimiterRes between them: the in-process rung spends on every call (bench/RESULTS.md, issue
   * 32). `limit` is this budget's points; rate-limits.spec.ts compares it with the general path.
   */
  verdictNow(key: string, points = 1): RateVerdict {
    const { consumed, msBeforeNext } = this.spend(key, points);
    return {
      allowed: consumed <= this.points,
      limit: this.points,
      remaining: Math.max(this.points - consumed, 0),
      resetSec: Math.max(1, Math.ceil(msBeforeNext / 1000)),
    };
  }

  /** Spends `points` of the key's window, opening a new one when none is live. */
  private spend(key: string, points: number): { consumed: number; msBeforeNext: number; first: boolean } {
    const now = Date.now();
    let window = this.windows.get(key);
    let msBeforeNext: number;
    const first = !window || (window.expiresAt !== null && window.expiresAt - now <= 0);
    if (!first) {
      window!.consumed += points;
      msBeforeNext = window!.expiresAt === null ? -1 : window!.expiresAt - now;
    } else {
      const durationMs = this.durationSec * 1_000;
      window = { consumed: points, expiresAt: durationMs > 0 ? now + durationMs : null };
      this.windows.set(key, window);
      msBeforeNext = durationMs === 0 ? -1 : durationMs;
    }
    return { consumed: window!.consumed, msBeforeNext, first };
  }

  consume(key: string, points = 1): Promise<RateLimiterRes> {
    const { allowed, res } = this.consumeNow(key, points);
    return allowed ? Promise.resolve(res) : Promise.reject(res);
  }

  get(key: string): Promise<RateLimiterRes | null> {
    const window = this.live(key, Date.now());
    if (!window) return Promise.resolve(null);
    const msBeforeNext = window.expiresAt === null ? -1 : window.expiresAt - Date.now();
    return Promise.resolve(
      new RateLimiterRes(Math.max(this.points - window.consumed, 0), msBeforeNext, window.consumed, false),
    );
  }

  /** Stops the sweep (the store's close). */
  close(): void {
    clearInterval(this.sweeper);
  }

  private live(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (!window) return undefined;
    if (window.expiresAt !== null && window.expiresAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows)
      if (window.expiresAt !== null && window.expiresAt <= now) this.windows.delete(key);
  }
}
