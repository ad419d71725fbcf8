import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { exchangeOf } from '../call/exchange.js';
import { McpRejectionError } from '../errors.js';
import { McpToolRegistry } from '../discovery/tool-registry.js';
import type { LadderCheck } from './ladder-check.js';
import { checkParamHeaders, checkStandardHeaders } from '../protocol/index.js';

/**
 * The request's header by its lower-case name, repeated values joined. Made here rather than as a
 * named closure in `check`: a bundler that keeps function names (esbuild's keepNames, as Kadu's
 * production bundle does) names such a closure with a defineProperty on every request when it
 * renames the variable (bench/RESULTS.md, issue 32, twenty-seventh pass).
 */
const headerLookup =
  (req: Request) =>
  (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };

/**
 * Rung 12 of docs/ladder.md §2 (2026 era only): the standard headers must be present and mirror the body,
 * and for `tools/call` every argument the tool mirrors into an `Mcp-Param-*` header must agree. The
 * endpoint runs it through McpLadderGuard's single pass (`check`); as a Nest guard of its own it does the same.
 */
@Injectable()
export class HeaderMatchGuard implements CanActivate, LadderCheck {
  constructor(private readonly tools: McpToolRegistry) {}

  canActivate(context: ExecutionContext): boolean {
    this.check(context.switchToHttp().getRequest<Request>());
    return true;
  }

  check(req: Request): void {
    const { message, era } = exchangeOf(req);
    if (!message || !era) throw new Error('HeaderMatchGuard runs after EraGuard');
    if (era.era !== 'modern') return;
    const header = headerLookup(req);
    const rejection = checkStandardHeaders(message, header);
    if (rejection) throw new McpRejectionError(rejection);
    if (message.method === 'tools/call' && typeof message.params?.name === 'string') {
      const tool = this.tools.get(message.params.name);
      const params = tool?.paramHeaders.length ? checkParamHeaders(message, tool.paramHeaders, header) : undefined;
      if (params) throw new McpRejectionError(params);
    }
  }
}
