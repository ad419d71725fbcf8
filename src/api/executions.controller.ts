import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { ContinueExecutionDto, ListExecutionsQueryDto } from '../executions/execution.dto.js';
import { ExecutionsService } from '../executions/executions.service.js';

@Controller('api/v1/executions')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class ExecutionsController {
  constructor(private readonly executions: ExecutionsService) {}

  @Get()
  @Requires(PERMISSIONS.executionsRead)
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: ListExecutionsQueryDto) {
    return this.executions.list(p, query);
  }

  @Get(':id')
  @Requires(PERMISSIONS.executionsRead)
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.executions.get(p, id);
  }

  @Get(':id/steps')
  @Requires(PERMISSIONS.executionsRead)
  steps(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Query() query: PageQueryDto) {
    return this.executions.steps(p, id, query);
  }

  @Post(':id/continue')
  @HttpCode(202)
  @Requires(PERMISSIONS.executionsWrite)
  continue(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: ContinueExecutionDto, @Headers('x-idempotency-key') key?: string) {
    return this.executions.continue(p, id, dto, key);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Requires(PERMISSIONS.executionsWrite)
  cancel(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Headers('x-idempotency-key') key?: string) {
    return this.executions.cancel(p, id, key);
  }
}
