import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { ExecutionsService } from '../executions/executions.service.js';
import { CreateTaskDto, DestinationsDto, LaunchPolicyDto, RunTaskDto, UpdateTaskDto } from '../tasks/task.dto.js';
import { TasksService } from '../tasks/tasks.service.js';

const IK = 'x-idempotency-key';

@Controller('api/v1/tasks')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class TasksController {
  constructor(
    private readonly tasks: TasksService,
    private readonly executions: ExecutionsService,
  ) {}

  @Get()
  @Requires(PERMISSIONS.tasksRead)
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.tasks.list(p, query);
  }

  @Post()
  @Requires(PERMISSIONS.tasksWrite)
  create(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateTaskDto, @Headers(IK) key?: string) {
    return this.tasks.create(p, dto, key);
  }

  @Get(':id')
  @Requires(PERMISSIONS.tasksRead)
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.tasks.get(p, id);
  }

  @Patch(':id')
  @Requires(PERMISSIONS.tasksWrite)
  update(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: UpdateTaskDto, @Headers(IK) key?: string) {
    return this.tasks.update(p, id, dto, key);
  }

  @Delete(':id')
  @Requires(PERMISSIONS.tasksWrite)
  remove(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.tasks.remove(p, id);
  }

  @Put(':id/launch_policy')
  @Requires(PERMISSIONS.tasksWrite)
  launchPolicy(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: LaunchPolicyDto, @Headers(IK) key?: string) {
    return this.tasks.setLaunchPolicy(p, id, dto, key);
  }

  @Put(':id/destinations')
  @Requires(PERMISSIONS.tasksWrite)
  destinations(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: DestinationsDto, @Headers(IK) key?: string) {
    return this.tasks.setDestinations(p, id, dto, key);
  }

  @Post(':id/run')
  @HttpCode(202)
  @Requires(PERMISSIONS.tasksRun)
  run(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: RunTaskDto, @Headers(IK) key?: string) {
    return this.executions.run(p, id, dto, key);
  }
}
