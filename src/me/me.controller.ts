import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';

/** `GET /api/v1/me`: who the token says the caller is. */
@Controller('api/v1/me')
@UseGuards(ApiAuthGuard)
export class MeController {
  @Get()
  me(@CurrentPrincipal() principal: KaduPrincipal) {
    return {
      data: {
        organization: { slug: principal.org },
        member: { email: principal.subject, role: principal.role },
        scopes: principal.scopes,
      },
    };
  }
}
