import { HttpException, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';
import { AccessPolicy } from '../access/access-policy.js';
import { McpToolRegistry } from '../discovery/tool-registry.js';
import { McpConfig } from '../mcp-config.js';
import { describeValue, TaskIdBinder, taskStatusParams } from '../protocol/index.js';
import { McpTaskEvents } from '../tasks/task-events.js';
import type { McpTaskChange } from '../tasks/task-source.js';
import { McpEvents } from './mcp-events.js';

/**
 * The module's own tasks on listen streams (`subscriptions.tasks`): who may follow a task id, and
 * the app's reported changes turned into `notifications/tasks` on the event bus, under the public
 * task id the module minted for the task's owner — so whichever replica made the change, the
 * owner's streams on every replica hear it.
 */
@Injectable()
export class ListenTasks implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpListen');
  private readonly ids: TaskIdBinder;
  private stop?: () => void;

  constructor(
    private readonly config: McpConfig,
    private readonly registry: McpToolRegistry,
    private readonly access: AccessPolicy,
    private readonly taskEvents: McpTaskEvents,
    private readonly events: McpEvents,
  ) {
    this.ids = new TaskIdBinder(config.stateKey);
  }

  get enabled(): boolean {
    return this.config.settings.listen.followModuleTasks;
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    if (!this.config.tasks) throw new Error('McpModule: `subscriptions.tasks` needs a `tasks` source');
    this.stop = this.taskEvents.onChange((change) => void this.publish(change));
  }

  onModuleDestroy(): void {
    this.stop?.();
  }

  /**
   * Whether the principal may follow the task: the id was minted for this caller, the tool behind
   * it is one the caller may use, and the source still has the task for them — `tasks/get`'s
   * checks. Anything else (forged, another caller's, gone) is refused alike.
   */
  async canFollow(principal: McpPrincipal | undefined, taskId: string, requestId: string): Promise<boolean> {
    const source = this.config.tasks;
    if (!source) return false;
    const ref = this.ids.open(this.config.principalKey(principal), taskId);
    const tool = ref && this.registry.get(ref.tool);
    if (!ref || !tool?.task) return false;
    const decision = this.access.decide(principal, {
      kind: 'tool',
      name: tool.name,
      scopes: tool.scopes,
      roles: tool.roles,
    });
    if (decision !== 'allowed') return false;
    try {
      return (await source.get(ref, { ...(principal ? { principal } : {}), requestId })) !== undefined;
    } catch (error) {
      if (error instanceof HttpException && error.getStatus() === 404) return false;
      throw error;
    }
  }

  private async publish(change: McpTaskChange): Promise<void> {
    if (change.principalKey === undefined || !change.state) return;
    const taskId = this.ids.mint(change.principalKey, change.ref);
    let params;
    try {
      params = taskStatusParams(taskId, change.state);
    } catch (error) {
      this.logger.warn(`task status not published: ${describeValue(error)}`);
      return;
    }
    await this.events.taskStatus(taskId, params, change.audience);
  }
}
