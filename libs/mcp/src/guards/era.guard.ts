import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { exchangeOf } from '../call/exchange.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import type { LadderCheck } from './ladder-check.js';
import { getHeldHeader, setHeldHeader } from '../response/held-headers.js';
import { classifyEra, HEADER_MCP_PROTOCOL_VERSION, HEADER_PROTOCOL_VERSION, isRejection } from '../protocol/index.js';

/**
 * Rung 11 of docs/ladder.md §2: decides the era of the request from its body, cross-checked with the
 * header. The endpoint runs it through McpLadderGuard's single pass (`check`); as a Nest guard of its
 * own it does the same.
 */
@Injectable()
export class EraGuard implements CanActivate, LadderCheck {
  constructor(private readonly config: McpConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    this.check(http.getRequest<Request>(), http.getResponse<Response>());
    return true;
  }

  check(req: Request, res: Response): void {
    const exchange = exchangeOf(req);
    if (!exchange.message) throw new Error('EraGuard runs after McpTransportGuard');
    const header = req.headers[HEADER_PROTOCOL_VERSION];
    const decision = classifyEra(
      exchange.message,
      typeof header === 'string' ? header : undefined,
      this.config.protocolVersions,
    );
    if (isRejection(decision)) throw new McpRejectionError(decision);
    exchange.era = decision;
    // Cache-Control is already set (the entry middleware, and every answer's writeHead); the revision
    // is set unless the header the middleware took from the request already names it.
    if (getHeldHeader(res, HEADER_MCP_PROTOCOL_VERSION) !== decision.revision)
      setHeldHeader(res, HEADER_MCP_PROTOCOL_VERSION, decision.revision);
  }
}
