import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { LADDER_GUARDS } from './ladder.js';
import { EraGuard } from './era.guard.js';
import { HeaderMatchGuard } from './header-match.guard.js';
import type { LadderCheck } from './ladder-check.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { McpTransportGuard } from './transport.guard.js';

/**
 * The module's rungs 4–12 of docs/ladder.md §2 as one Nest guard: McpTransportGuard, RateLimitGuard,
 * EraGuard and HeaderMatchGuard, in this order (ladder.ts), each refusing with its own rejection.
 * One pass instead of four guards in `@UseGuards`: Nest's guard consumer awaits every guard's answer,
 * here a step is waited for only when it has to wait (the body, a budget store), and the rest runs
 * in the same tick.
 */
@Injectable()
export class McpLadderGuard implements CanActivate {
  private readonly steps: readonly LadderCheck[];

  constructor(transport: McpTransportGuard, rateLimit: RateLimitGuard, era: EraGuard, headers: HeaderMatchGuard) {
    this.steps = [transport, rateLimit, era, headers];
    // ladder.ts is the order's one statement: a step moved there and not here fails at bootstrap.
    if (
      this.steps.some((step, i) => step.constructor !== LADDER_GUARDS[i]) ||
      this.steps.length !== LADDER_GUARDS.length
    )
      throw new Error('McpLadderGuard: its steps are not LADDER_GUARDS (ladder.ts) in order');
  }

  canActivate(context: ExecutionContext): true | Promise<true> {
    const http = context.switchToHttp();
    return this.from(0, http.getRequest<Request>(), http.getResponse<Response>());
  }

  private from(first: number, req: Request, res: Response): true | Promise<true> {
    for (let i = first; i < this.steps.length; i++) {
      const waiting = this.steps[i].check(req, res);
      if (waiting) return waiting.then(() => this.from(i + 1, req, res));
    }
    return true;
  }
}
