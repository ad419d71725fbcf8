import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import {
  RateLimits,
  rateLimitHeaders,
  setRateLimitHeaders,
  StoreUnavailable,
  type RateVerdict,
} from '@kobana/nest-mcp';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { type KaduPrincipal, principalKeyOf } from './kadu-principal.js';

/**
 * The REST door spends the same per-principal budgets as the MCP door (one caller, one budget,
 * whichever door): every request the general budget, every write the write budget.
 */
@Injectable()
export class ApiRateLimitGuard implements CanActivate {
  constructor(private readonly limits: RateLimits) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.getArgByIndex<Request & { user: KaduPrincipal }>(0);
    const res = context.getArgByIndex<Response>(1);
    const key = principalKeyOf(req.user);
    const write = req.method !== 'GET' && req.method !== 'HEAD';
    // In-process budgets answer in this tick (RateLimits.answersAtOnce): the same verdicts without
    // a promise, and Nest's guard consumer takes a boolean without awaiting it.
    if (this.limits.answersAtOnce('general', 'writes')) {
      apply(res, this.limits.consumeNow('general', key));
      if (write) apply(res, this.limits.consumeNow('writes', key));
      return true;
    }
    return this.spend(res, key, write);
  }

  private async spend(res: Response, key: string, write: boolean): Promise<boolean> {
    try {
      apply(res, await this.limits.consume('general', key));
      if (write) apply(res, await this.limits.consume('writes', key));
    } catch (error) {
      if (error instanceof StoreUnavailable) throw storeDown();
      throw error;
    }
    return true;
  }
}

export function apply(res: Response, verdict: RateVerdict | undefined): void {
  if (!verdict) return;
  setRateLimitHeaders(res, verdict);
  if (!verdict.allowed) {
    const error = new ApiError(429, 'rate_limited', 'Too many requests', `Retry after ${verdict.resetSec} seconds`);
    for (const [name, value] of Object.entries(rateLimitHeaders(verdict))) error.withHeader(name, value);
    throw error;
  }
}

export function storeDown(): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    'Service unavailable',
    'The rate-limit store cannot be reached; retry shortly',
  ).withHeader('Retry-After', '5');
}
