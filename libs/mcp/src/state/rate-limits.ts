import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { StoreUnavailable } from '../errors.js';
import { MCP_STATE_STORE, type McpRateLimiter, type McpStateStore } from './mcp-state-store.js';
import { ProcessBudget } from './process-budget.js';
import { freshDecimal } from './fresh-decimal.js';
import { type HeaderSink, setHeldHeader } from '../response/held-headers.js';
import { type BudgetName, MCP_STATE_OPTIONS, type McpStateOptions, type RateBudget } from './mcp-state.options.js';

/** Defaults documented in docs/module-options.md (`rateLimits`): generous for reads, tighter for writes and failed logins. */
export const DEFAULT_BUDGETS: Record<BudgetName, RateBudget> = {
  general: { points: 300, durationSec: 60 },
  writes: { points: 60, durationSec: 60 },
  failedAuth: { points: 20, durationSec: 300 },
};

export interface RateVerdict {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSec: number;
}

/**
 * Per-principal (and, for failed logins, per-address) budgets kept in the MCP state store, so a
 * limit holds across replicas and across doors: the REST API spends the same principal budgets.
 */
@Injectable()
export class RateLimits {
  private readonly limiters = new Map<
    BudgetName,
    { budget: RateBudget; limiter: McpRateLimiter; inProcess: ProcessBudget | undefined }
  >();
  private readonly refusalListeners: ((budget: BudgetName) => void)[] = [];

  constructor(@Inject(MCP_STATE_STORE) store: McpStateStore, @Inject(MCP_STATE_OPTIONS) options: McpStateOptions) {
    const configured = options.rateLimits;
    for (const name of Object.keys(DEFAULT_BUDGETS) as BudgetName[]) {
      const budget = configured?.[name] ?? DEFAULT_BUDGETS[name];
      if (!budget) continue;
      const limiter = store.limiter(name, budget.points, budget.durationSec);
      // Made here with the budget's own points, so its verdictNow words the same verdict as consumeNow below.
      const inProcess = limiter instanceof ProcessBudget ? limiter : undefined;
      this.limiters.set(name, { budget, limiter, inProcess });
    }
  }

  /** Called on every refusal, whichever door spent the budget (the module's telemetry counts them). */
  onRefusal(listener: (budget: BudgetName) => void): void {
    this.refusalListeners.push(listener);
  }

  enabled(name: BudgetName): boolean {
    return this.limiters.has(name);
  }

  /** Spends `points` of a budget; a verdict either way, or StoreUnavailable. */
  async consume(name: BudgetName, key: string, points = 1): Promise<RateVerdict | undefined> {
    const entry = this.limiters.get(name);
    if (!entry) return undefined;
    try {
      return verdict(entry.budget, await entry.limiter.consume(key, points), true);
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) {
        for (const listener of this.refusalListeners) listener(name);
        return verdict(entry.budget, outcome, false);
      }
      throw new StoreUnavailable(outcome, 'the rate-limit store');
    }
  }

  /** Whether every configured budget among `names` answers in the same tick (consumeNow). */
  answersAtOnce(...names: BudgetName[]): boolean {
    return names.every((name) => {
      const entry = this.limiters.get(name);
      return !entry || entry.limiter.consumeNow !== undefined;
    });
  }

  /** consume() answered in the same tick; only where answersAtOnce(name) says so. */
  consumeNow(name: BudgetName, key: string, points = 1): RateVerdict | undefined {
    const entry = this.limiters.get(name);
    if (!entry) return undefined;
    if (entry.inProcess) {
      const now = entry.inProcess.verdictNow(key, points);
      if (!now.allowed) for (const listener of this.refusalListeners) listener(name);
      return now;
    }
    const spent = entry.limiter.consumeNow!(key, points);
    if (!spent.allowed) for (const listener of this.refusalListeners) listener(name);
    return verdict(entry.budget, spent.res, spent.allowed);
  }

  /** Whether the budget still has room, without spending it. */
  async peek(name: BudgetName, key: string): Promise<RateVerdict | undefined> {
    const entry = this.limiters.get(name);
    if (!entry) return undefined;
    let res: RateLimiterRes | null;
    try {
      res = await entry.limiter.get(key);
    } catch (error) {
      throw new StoreUnavailable(error, 'the rate-limit store');
    }
    if (!res)
      return {
        allowed: true,
        limit: entry.budget.points,
        remaining: entry.budget.points,
        resetSec: entry.budget.durationSec,
      };
    return verdict(entry.budget, res, res.consumedPoints < entry.budget.points);
  }
}

function verdict(budget: RateBudget, res: RateLimiterRes, allowed: boolean): RateVerdict {
  return {
    allowed,
    limit: budget.points,
    remaining: Math.max(0, res.remainingPoints),
    resetSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * RFC-draft `RateLimit-*` headers plus `Retry-After` when refused. The limit and the reset take few
 * values, which V8's number-to-string cache answers without a new string; the remaining count takes
 * as many as the limit allows, so it is written apart (fresh-decimal.ts).
 */
export function rateLimitHeaders(v: RateVerdict): Record<string, string> {
  return {
    'RateLimit-Limit': String(v.limit),
    'RateLimit-Remaining': freshDecimal(v.remaining),
    'RateLimit-Reset': String(v.resetSec),
    ...(v.allowed ? {} : { 'Retry-After': String(v.resetSec) }),
  };
}

/**
 * rateLimitHeaders(v) set on `res`, the same names, values and order, without the record and its
 * entries: both doors set them on every call (bench/RESULTS.md, issue 32). rate-limits.spec.ts
 * compares the two. Held for the head where the response holds its headers (the MCP endpoint).
 */
export function setRateLimitHeaders(res: HeaderSink, v: RateVerdict): void {
  setHeldHeader(res, 'RateLimit-Limit', String(v.limit));
  setHeldHeader(res, 'RateLimit-Remaining', freshDecimal(v.remaining));
  setHeldHeader(res, 'RateLimit-Reset', String(v.resetSec));
  if (!v.allowed) setHeldHeader(res, 'Retry-After', String(v.resetSec));
}
