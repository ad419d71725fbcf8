import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { RateLimits, rateLimitHeaders, StoreUnavailable, type RateVerdict } from '@kobana/nest-mcp';
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

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { user: KaduPrincipal }>();
    const res = context.switchToHttp().getResponse<Response>();
    const key = principalKeyOf(req.user);
    try {
      apply(res, await this.limits.consume('general', key));
      if (req.method !== 'GET' && req.method !== 'HEAD') apply(res, await this.limits.consume('writes', key));
    } catch (error) {
      if (error instanceof StoreUnavailable) throw storeDown();
      throw error;
    }
    return true;
  }
}

export function apply(res: Response, verdict: RateVerdict | undefined): void {
  if (!verdict) return;
  const headers = rateLimitHeaders(verdict);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (!verdict.allowed) {
    const error = new ApiError(429, 'rate_limited', 'Too many requests', `Retry after ${verdict.resetSec} seconds`);
    for (const [name, value] of Object.entries(headers)) error.withHeader(name, value);
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
