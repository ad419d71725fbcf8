import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { exchangeOf } from '../http/exchange.js';
import { McpRejectionError } from '../http/send.js';
import { checkStandardHeaders } from '../protocol/index.js';

/** Rung 12 of wire.md §2 (2026 era only): the standard headers must be present and mirror the body. */
@Injectable()
export class HeaderMatchGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const { message, era } = exchangeOf(req);
    if (!message || !era) throw new Error('HeaderMatchGuard runs after EraGuard');
    if (era.era !== 'modern') return true;
    const rejection = checkStandardHeaders(message, (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    });
    if (rejection) throw new McpRejectionError(rejection);
    return true;
  }
}
