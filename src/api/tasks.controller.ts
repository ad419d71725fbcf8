import { Body, Controller, Delete, Get, Headers, Param, Patch, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreateTaskDto, DestinationsDto, LaunchPolicyDto, UpdateTaskDto } from '../tasks/task.dto.js';
import { TasksService } from '../tasks/tasks.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';

const IK = 'x-idempotency-key';

@Controller('api/v1/tasks')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Get()
  @Requires(PERMISSIONS.tasksRead)
  @ToolTwin('kadu_tasks_list')
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.tasks.list(p, query);
  }

  @Post()
  @Requires(PERMISSIONS.tasksWrite)
  @ToolTwin('kadu_tasks_create')
  create(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateTaskDto, @Headers(IK) key?: string) {
    return this.tasks.create(p, dto, key);
  }

  @Get(':id')
  @Requires(PERMISSIONS.tasksRead)
  @ToolTwin('kadu_tasks_get', { id: 'task_id' })
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.tasks.get(p, id);
  }

  @Patch(':id')
  @Requires(PERMISSIONS.tasksWrite)
  @ToolTwin('kadu_tasks_update', { id: 'task_id' })
  update(
    @CurrentPrincipal() p: KaduPrincipal,
    @Param('id') id: string,
    @Body() dto: UpdateTaskDto,
    @Headers(IK) key?: string,
  ) {
    return this.tasks.update(p, id, dto, key);
  }

  @Delete(':id')
  @Requires(PERMISSIONS.tasksWrite)
  @ToolTwin('kadu_tasks_delete', { id: 'task_id' })
  remove(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.tasks.remove(p, id);
  }

  @Put(':id/launch_policy')
  @Requires(PERMISSIONS.tasksWrite)
  @ToolTwin('kadu_tasks_set_launch_policy', { id: 'task_id' })
  launchPolicy(
    @CurrentPrincipal() p: KaduPrincipal,
    @Param('id') id: string,
    @Body() dto: LaunchPolicyDto,
    @Headers(IK) key?: string,
  ) {
    return this.tasks.setLaunchPolicy(p, id, dto, key);
  }

  @Put(':id/destinations')
  @Requires(PERMISSIONS.tasksWrite)
  @ToolTwin('kadu_tasks_set_destinations', { id: 'task_id' })
  destinations(
    @CurrentPrincipal() p: KaduPrincipal,
    @Param('id') id: string,
    @Body() dto: DestinationsDto,
    @Headers(IK) key?: string,
  ) {
    return this.tasks.setDestinations(p, id, dto, key);
  }
}
