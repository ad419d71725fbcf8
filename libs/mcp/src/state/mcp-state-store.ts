import type { RateLimiterRes } from 'rate-limiter-flexible';

/** The part of a rate-limiter-flexible limiter the module uses. */
export interface McpRateLimiter {
  consume(key: string, points?: number): Promise<RateLimiterRes>;
  get(key: string): Promise<RateLimiterRes | null>;
  /**
   * The same spend answered in the same tick, for a limiter whose counters live in this process
   * (ProcessBudget); absent when the answer must wait for a store (Redis).
   */
  consumeNow?(key: string, points?: number): { allowed: boolean; res: RateLimiterRes };
}

/**
 * Shared, expiring key-value state the module needs across replicas: consumed request-state
 * nonces, approvals, rate-limit counters. Every operation that decides something is atomic, so a
 * confirmation given on one replica and a retry landing on another cannot run twice.
 */
export interface McpStateStore {
  /** Marks `key` used; true the first time only (until it expires). */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | undefined>;
  /** Replaces the value only if it is still `expected` (keeps the remaining expiry). */
  compareAndSet(key: string, expected: string, next: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Adds `by` to a counter that expires `ttlMs` after its creation; returns the new value and its remaining lifetime. */
  increment(key: string, by: number, ttlMs: number): Promise<{ value: number; ttlMs: number }>;
  /** A rate limiter (rate-limiter-flexible) kept in this store, so limits hold across replicas. */
  limiter(name: string, points: number, durationSec: number): McpRateLimiter;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const MCP_STATE_STORE = Symbol('MCP_STATE_STORE');
