import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { McpToolRegistry } from '../discovery/tool-registry.js';
import { exchangeOf } from '../call/exchange.js';
import { McpRejectionError, StoreUnavailable } from '../errors.js';
import { RateLimits, type RateVerdict, setRateLimitHeaders } from '../state/rate-limits.js';
import { McpConfig } from '../mcp-config.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import type { LadderCheck } from './ladder-check.js';
import { type JsonRpcId, serviceUnavailable, tooManyRequests } from '../protocol/index.js';

/**
 * Rung 10 of docs/ladder.md §2: the caller's budgets, after the message is known and before anything
 * else is done for it. Every request spends the principal's general budget; a `tools/call` of a
 * tool that is not read-only also spends the tighter write budget. Over budget → 429 with
 * `Retry-After`; the store unreachable → 503 (never an unchecked pass).
 */
@Injectable()
export class RateLimitGuard implements CanActivate, LadderCheck {
  constructor(
    private readonly limits: RateLimits,
    private readonly tools: McpToolRegistry,
    private readonly config: McpConfig,
    private readonly telemetry: McpTelemetry,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const spent = this.check(http.getRequest<Request>(), http.getResponse<Response>());
    return spent ? spent.then(() => true) : true;
  }

  check(req: Request, res: Response): Promise<void> | undefined {
    // No budget configured: nothing to wait for, so the ladder's pass goes on in the same tick.
    if (!this.limits.enabled('general') && !this.limits.enabled('writes')) return undefined;
    // Budgets kept in this process answer at once: no promise, no span context to carry (no store commands).
    if (this.limits.answersAtOnce('general', 'writes')) {
      this.spendNow(req, res);
      return undefined;
    }
    const exchange = exchangeOf(req);
    // Inside the request's span: the store's commands (Redis) are its children.
    return this.telemetry.run(exchange, () => this.spend(req, res));
  }

  private async spend(req: Request, res: Response): Promise<void> {
    const { id, key, write } = this.spending(req);
    try {
      this.applyVerdict(res, await this.limits.consume('general', key), id);
      if (write) this.applyVerdict(res, await this.limits.consume('writes', key), id);
    } catch (error) {
      if (error instanceof StoreUnavailable) throw new McpRejectionError(serviceUnavailable(id, 5, error.store));
      throw error;
    }
  }

  /** spend() with budgets that answer at once (RateLimits.answersAtOnce): the same verdicts, in this tick. */
  private spendNow(req: Request, res: Response): void {
    const { id, key, write } = this.spending(req);
    this.applyVerdict(res, this.limits.consumeNow('general', key), id);
    if (write) this.applyVerdict(res, this.limits.consumeNow('writes', key), id);
  }

  /** Whose budgets the request spends, and whether it spends the write budget too. */
  private spending(req: Request): { id: JsonRpcId | null; key: string; write: boolean } {
    const { message } = exchangeOf(req);
    if (!message) throw new Error('RateLimitGuard runs after McpTransportGuard');
    const principal = this.config.principalOf(req);
    const key = principal ? this.config.principalKey(principal) : `address:${req.ip ?? 'unknown'}`;
    let write = false;
    if (message.method === 'tools/call' && typeof message.params?.name === 'string') {
      const tool = this.tools.get(message.params.name);
      write = tool !== undefined && !tool.annotations.readOnlyHint;
    } else if (message.method === 'tasks/update' || message.method === 'tasks/cancel') {
      // They change a task (answers, cancellation) like a write tool does.
      write = true;
    }
    return { id: message.id ?? null, key, write };
  }

  private applyVerdict(res: Response, verdict: RateVerdict | undefined, id: JsonRpcId | null): void {
    if (!verdict) return;
    setRateLimitHeaders(res, verdict);
    if (!verdict.allowed) throw new McpRejectionError(tooManyRequests(id, verdict.resetSec));
  }
}
