import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { ContinueExecutionDto, ListExecutionsQueryDto } from '../executions/execution.dto.js';
import { ExecutionsService } from '../executions/executions.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';

@Controller('api/v1/executions')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class ExecutionsController {
  constructor(private readonly executions: ExecutionsService) {}

  @Get()
  @Requires(PERMISSIONS.executionsRead)
  @ToolTwin('kadu_executions_list')
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: ListExecutionsQueryDto) {
    return this.executions.list(p, query);
  }

  @Get(':id')
  @Requires(PERMISSIONS.executionsRead)
  @ToolTwin('kadu_executions_get', { id: 'execution_id' })
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.executions.get(p, id);
  }

  @Get(':id/steps')
  @Requires(PERMISSIONS.executionsRead)
  @ToolTwin('kadu_executions_steps_list', { id: 'execution_id' })
  steps(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Query() query: PageQueryDto) {
    return this.executions.steps(p, id, query);
  }

  @Post(':id/continue')
  @HttpCode(202)
  @Requires(PERMISSIONS.executionsWrite)
  @ToolTwin('kadu_executions_continue', { id: 'execution_id' })
  @ApiResponse({
    status: 402,
    description: "`plan_limit_exceeded`: this month's budget cannot cover what the execution may still spend",
  })
  @ApiResponse({ status: 409, description: '`invalid_state`: only an awaiting_input execution can be continued' })
  @ApiResponse({
    status: 429,
    description: "`concurrency_limit`: the plan's concurrent executions are all running (Retry-After)",
  })
  @ApiResponse({ status: 503, description: '`queue_saturated`: too many executions are waiting to run' })
  continue(
    @CurrentPrincipal() p: KaduPrincipal,
    @Param('id') id: string,
    @Body() dto: ContinueExecutionDto,
    @Headers('x-idempotency-key') key?: string,
  ) {
    return this.executions.continue(p, id, dto, key);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Requires(PERMISSIONS.executionsWrite)
  @ToolTwin('kadu_executions_cancel', { id: 'execution_id' })
  @ApiResponse({ status: 409, description: '`invalid_state`: the execution already ended' })
  cancel(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Headers('x-idempotency-key') key?: string) {
    return this.executions.cancel(p, id, key);
  }
}
