import { Body, Controller, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ExecutionsService } from '../executions/executions.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';
import { RunTaskDto } from '../tasks/task.dto.js';

/**
 * `POST /api/v1/tasks/{id}/run`: a task's route that starts an execution, so it belongs to the
 * executions domain (ExecutionsModule), which uses the tasks domain — not the other way round.
 */
@Controller('api/v1/tasks')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class TaskRunsController {
  constructor(private readonly executions: ExecutionsService) {}

  @Post(':id/run')
  @HttpCode(202)
  @Requires(PERMISSIONS.tasksRun)
  @ToolTwin('kadu_tasks_run', { id: 'task_id' })
  @ApiResponse({
    status: 402,
    description: "`plan_limit_exceeded`: this month's budget cannot cover the task's cost cap",
  })
  @ApiResponse({ status: 403, description: "`launch_not_allowed`: the task's launch policy does not include you" })
  @ApiResponse({
    status: 422,
    description:
      "`input_invalid`: the input does not match the task's input_schema (one error per problem); `input_schema_unusable`: update the task's schema; `file_not_ready`: confirm the input files first",
  })
  @ApiResponse({
    status: 429,
    description: "`concurrency_limit`: the plan's concurrent executions are all running (Retry-After)",
  })
  @ApiResponse({ status: 503, description: '`queue_saturated`: too many executions are waiting to run' })
  run(
    @CurrentPrincipal() p: KaduPrincipal,
    @Param('id') id: string,
    @Body() dto: RunTaskDto,
    @Headers('x-idempotency-key') key?: string,
  ) {
    return this.executions.run(p, id, dto, key);
  }
}
