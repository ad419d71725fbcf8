import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { AccountService } from '../usage/account.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';

@Controller('api/v1')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get('me')
  @Requires(PERMISSIONS.me)
  @ToolTwin('kadu_me_get')
  me(@CurrentPrincipal() principal: KaduPrincipal) {
    return this.account.me(principal);
  }

  @Get('usage')
  @Requires(PERMISSIONS.usageRead)
  @ToolTwin('kadu_usage_get')
  usage(@CurrentPrincipal() principal: KaduPrincipal) {
    return this.account.usage(principal);
  }
}
