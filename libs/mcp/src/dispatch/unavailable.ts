import { HttpException } from '@nestjs/common';
import { unavailable } from '../guards/rate-limit.guard.js';
import { McpRejectionError } from '../http/send.js';
import type { JsonRpcId } from '../protocol/index.js';

/**
 * A 503 from the app's method (its database or queue cannot take the request) is not a tool
 * error: the whole request answers HTTP 503 with `Retry-After`, so clients and load balancers back
 * off. The delay comes from the exception's `headers['Retry-After']` or `retryAfter`, else 5 s.
 */
export function asUnavailable(error: unknown, id: JsonRpcId): McpRejectionError | undefined {
  if (!(error instanceof HttpException) || error.getStatus() !== 503) return undefined;
  const carrier = error as HttpException & { headers?: Record<string, string>; retryAfter?: number };
  const retryAfter = Number(carrier.headers?.['Retry-After'] ?? carrier.retryAfter ?? 5) || 5;
  return new McpRejectionError(unavailable(id, retryAfter, 'a dependency'));
}
