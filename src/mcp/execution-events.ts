import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { describeValue, McpEvents, McpTaskEvents } from '@kobana/nest-mcp';
import { ExecutionNotifier } from '../executions/execution-notifier.js';
import { executionStepsUri, executionUri } from '../executions/execution-uri.js';
import { ExecutionTasks } from './execution-tasks.js';

/** The `_meta` keys a Kadu `notifications/resources/updated` carries, so a listener sees the order without a read. */
export const STATUS_META = 'com.kobana.kadu/status';
export const STEPS_META = 'com.kobana.kadu/steps';

/**
 * The MCP side of an execution's change (ExecutionNotifier, the executions domain's event): its
 * resource when its state changes, a step is added, it needs input or it ends, its steps resource
 * when steps change — for `subscriptions/listen` streams — then its task's new state to
 * McpTaskEvents (`notifications/tasks`). Lives with McpModule's registration (KaduMcpModule), so the
 * domain never needs McpModule's exports and McpModule need not be global.
 */
@Injectable()
export class ExecutionEvents implements OnModuleInit {
  private readonly logger = new Logger('ExecutionTasks');

  constructor(
    private readonly notifier: ExecutionNotifier,
    private readonly events: McpEvents,
    private readonly taskEvents: McpTaskEvents,
    private readonly tasks: ExecutionTasks,
  ) {}

  onModuleInit(): void {
    this.notifier.onChanged(async (execution, audience, change) => {
      const meta = {
        [STATUS_META]: execution.status,
        ...(change.steps === undefined ? {} : { [STEPS_META]: change.steps }),
      };
      await this.events.resourceUpdated(executionUri(execution.id), { audience, meta });
      if (change.stepsChanged) await this.events.resourceUpdated(executionStepsUri(execution.id), { audience, meta });
      // Then its task status, after the resource, in change order.
      await this.taskStatus(execution.id, audience);
    });
  }

  /** A failure here never fails the change; polling `tasks/get` still shows it. */
  private async taskStatus(executionId: string, audience: string): Promise<void> {
    try {
      const change = await this.tasks.changeOf(executionId, audience);
      if (change) this.taskEvents.changed(change);
    } catch (error) {
      this.logger.warn(`task status of ${executionId} not published: ${describeValue(error)}`);
    }
  }
}
