import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { KaduPrincipal } from './kadu-principal.js';

/** The verified principal of a REST request (set by ApiAuthGuard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): KaduPrincipal => {
  return (ctx.switchToHttp().getRequest<Request>() as Request & { user: KaduPrincipal }).user;
});
