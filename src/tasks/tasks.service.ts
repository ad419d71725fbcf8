import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpResource, McpResourceTemplate, McpTool } from '@kobana/nest-mcp';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ApiError } from '../common/api-error.js';
import { IdempotencyService } from '../common/idempotency.service.js';
import { limitOf, PageQueryDto, Paginator } from '../common/pagination.js';
import type { Envelope, ListEnvelope } from '../common/serialize.js';
import { DATABASE, type Database, type Queryable } from '../db/database.js';
import { hints, IDEMPOTENCY_KEY, idArg } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { CreateTaskDto, DestinationsDto, LaunchPolicyDto, UpdateTaskDto } from './task.dto.js';
import { TaskInputValidator } from './input-schema.js';
import { TaskRecords } from './task-records.js';
import { type TaskRow, taskView, type TaskView } from './task.view.js';
import { TaskEnvelope, TaskPage } from './task.response.js';

/** Tasks: what an organisation can run. One implementation behind /api/v1/tasks and the kadu_tasks_* tools. */
@Injectable()
export class TasksService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
    private readonly idempotency: IdempotencyService,
    private readonly paginator: Paginator,
    readonly inputs: TaskInputValidator,
    private readonly records: TaskRecords,
  ) {}

  @McpTool({
    name: 'kadu_tasks_list',
    output: TaskPage,
    title: 'List tasks',
    description: 'Lists the tasks of your organisation, newest first. Page with meta.next_cursor.',
    annotations: hints('read', true),
    ...PERMISSIONS.tasksRead,
  })
  async list(@McpCaller() principal: KaduPrincipal, @McpInput() query: PageQueryDto): Promise<ListEnvelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    const limit = limitOf(query);
    const after = this.paginator.after(query.cursor, {});
    const rows = await this.records.list(ctx.orgId, limit + 1, after);
    return this.paginator.page(rows.map(taskView), limit, {});
  }

  @McpResourceTemplate({
    uriTemplate: 'kobana://kadu/tasks/{id}',
    name: 'task',
    title: 'Task',
    description: 'One task of your organisation, as kadu_tasks_get returns it.',
    mimeType: 'application/json',
    bind: { id: 'task_id' },
    ...PERMISSIONS.tasksRead,
  })
  @McpTool({
    name: 'kadu_tasks_get',
    output: TaskEnvelope,
    title: 'Get a task',
    description: 'Gets one task: its kind, instructions, input schema, cost cap, launch policy and destinations.',
    annotations: hints('read', true),
    ...PERMISSIONS.tasksRead,
  })
  async get(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('task_id', idArg('task')) taskId: string,
  ): Promise<Envelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    return { data: taskView(await this.load(this.db, ctx.orgId, taskId)) };
  }

  @McpTool({
    name: 'kadu_tasks_create',
    output: TaskEnvelope,
    title: 'Create a task',
    description: 'Creates a task of a given kind with a cost cap per execution. Run it with kadu_tasks_run.',
    annotations: hints('write', false),
    ...PERMISSIONS.tasksWrite,
  })
  async create(
    @McpCaller() principal: KaduPrincipal,
    @McpInput() dto: CreateTaskDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ): Promise<Envelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    this.inputs.assertSchema(dto.input_schema);
    return this.idempotency.run(ctx.orgId, idempotencyKey, 'tasks.create', dto, 201, async () => {
      return { data: taskView(await this.records.insert(ctx.orgId, dto)) };
    });
  }

  @McpTool({
    name: 'kadu_tasks_update',
    output: TaskEnvelope,
    title: 'Update a task',
    description: 'Changes the name, description, instructions, input schema or cost cap of a task.',
    annotations: hints('write', true),
    ...PERMISSIONS.tasksWrite,
  })
  async update(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('task_id', idArg('task')) taskId: string,
    @McpInput() dto: UpdateTaskDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ): Promise<Envelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    this.inputs.assertSchema(dto.input_schema);
    return this.idempotency.run(ctx.orgId, idempotencyKey, `tasks.update:${taskId}`, dto, 200, () =>
      this.patch(ctx.orgId, taskId, {
        name: dto.name,
        description: dto.description,
        instructions: dto.instructions,
        input_schema: dto.input_schema === undefined ? undefined : JSON.stringify(dto.input_schema),
        cost_cap: dto.cost_cap,
      }),
    );
  }

  @McpTool({
    name: 'kadu_tasks_set_launch_policy',
    output: TaskEnvelope,
    title: 'Set who can launch a task',
    description: 'Replaces the launch policy of a task: the roles and member ids allowed to run it.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.tasksWrite,
    preflight: TasksService.prototype.get,
  })
  async setLaunchPolicy(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('task_id', idArg('task')) taskId: string,
    @McpInput() dto: LaunchPolicyDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ): Promise<Envelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    return this.idempotency.run(ctx.orgId, idempotencyKey, `tasks.launch_policy:${taskId}`, dto, 200, async () => {
      // Only members of this organisation can be named: another org's member id is simply not found.
      const ids = [...new Set(dto.member_ids)];
      const found = await this.records.memberIds(ctx.orgId, ids);
      const missing = ids.find((id) => !found.includes(id));
      if (missing !== undefined)
        throw new ApiError(404, 'not_found', 'Not found', `No such member: ${missing}`, 'member_ids');
      return this.patch(ctx.orgId, taskId, { launch_policy: JSON.stringify({ roles: dto.roles, member_ids: ids }) });
    });
  }

  @McpTool({
    name: 'kadu_tasks_set_destinations',
    output: TaskEnvelope,
    title: 'Set where a task delivers',
    description: 'Replaces the destinations (webhooks) that receive the execution events of a task.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.tasksWrite,
    preflight: TasksService.prototype.checkDestinations,
  })
  async setDestinations(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('task_id', idArg('task')) taskId: string,
    @McpInput() dto: DestinationsDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ): Promise<Envelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    return this.idempotency.run(ctx.orgId, idempotencyKey, `tasks.destinations:${taskId}`, dto, 200, async () => {
      await this.checkWebhooks(ctx.orgId, dto);
      const destinations = dto.destinations.map((d) => ({ type: 'webhook', webhook_id: d.webhook_id }));
      return this.patch(ctx.orgId, taskId, { destinations: JSON.stringify(destinations) });
    });
  }

  @McpTool({
    name: 'kadu_tasks_delete',
    output: TaskEnvelope,
    title: 'Delete a task',
    description: 'Deletes a task; its executions stay readable.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.tasksWrite,
    preflight: TasksService.prototype.get,
  })
  async remove(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('task_id', idArg('task')) taskId: string,
  ): Promise<Envelope<TaskView>> {
    const ctx = await this.orgs.of(principal);
    return { data: taskView(await this.records.remove(ctx.orgId, taskId)) };
  }

  @McpResource({
    uri: 'kobana://kadu/tasks',
    name: 'runnable_tasks',
    title: 'Runnable tasks',
    description: 'The tasks you may launch, with their kind, cost cap and input schema.',
    mimeType: 'application/json',
    ...PERMISSIONS.tasksRead,
  })
  async runnable(@McpCaller() principal: KaduPrincipal) {
    const ctx = await this.orgs.of(principal);
    const rows = await this.records.newest(ctx.orgId);
    const mayLaunch = (t: TaskRow) =>
      (!t.launch_policy.roles.length && !t.launch_policy.member_ids.length) ||
      t.launch_policy.roles.includes(principal.role) ||
      t.launch_policy.member_ids.includes(ctx.memberId);
    return {
      data: rows.filter(mayLaunch).map((t) => ({
        id: t.id,
        name: t.name,
        description: t.description,
        kind: t.kind,
        cost_cap: t.cost_cap,
        input_schema: t.input_schema,
      })),
    };
  }

  /** Before anyone is asked to confirm new destinations: the task and every webhook exist here. */
  async checkDestinations(principal: KaduPrincipal, taskId: string, dto: DestinationsDto): Promise<void> {
    const ctx = await this.orgs.of(principal);
    await this.load(this.db, ctx.orgId, taskId);
    await this.checkWebhooks(ctx.orgId, dto);
  }

  private async checkWebhooks(orgId: string, dto: DestinationsDto): Promise<void> {
    for (const d of dto.destinations) {
      if (!(await this.records.hasWebhook(orgId, d.webhook_id)))
        throw new ApiError(404, 'not_found', 'Not found', `No such webhook: ${d.webhook_id}`, 'destinations');
    }
  }

  /** A live task of the org, or 404 (missing, foreign and deleted look the same). */
  load(q: Queryable, orgId: string, taskId: string): Promise<TaskRow> {
    return this.records.load(q, orgId, taskId);
  }

  private async patch(orgId: string, taskId: string, fields: Record<string, unknown>): Promise<Envelope<TaskView>> {
    return { data: taskView(await this.records.patch(orgId, taskId, fields)) };
  }
}
