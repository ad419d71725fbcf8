import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MCP_EVENT_BUS, type McpEventBus } from '../events/mcp-event-bus.js';
import type { JsonObject, SubscriptionEvent } from '../protocol/index.js';
import { describeValue } from '../protocol/index.js';

/**
 * What the app calls when something a client may listen to changed. Publishing never fails the
 * work that made the change: the change is stored, and a lost notification only means a client
 * finds it at its next read.
 */
@Injectable()
export class McpEvents {
  private readonly logger = new Logger('McpEvents');

  private bus?: McpEventBus;

  // The bus is looked up at the first publish, not injected: the module's options (which give the
  // bus) may come from a factory that needs the very services that publish (a cycle otherwise).
  constructor(private readonly moduleRef: ModuleRef) {}

  toolsChanged(): Promise<void> {
    return this.publish({ type: 'tools/list_changed' });
  }

  promptsChanged(): Promise<void> {
    return this.publish({ type: 'prompts/list_changed' });
  }

  resourcesChanged(): Promise<void> {
    return this.publish({ type: 'resources/list_changed' });
  }

  /** `notifications/resources/updated` for `uri`; `meta` travels in the notification's `_meta`. */
  resourceUpdated(uri: string, options: { audience?: string; meta?: JsonObject } = {}): Promise<void> {
    return this.publish({ type: 'resources/updated', uri, ...options });
  }

  /** Tasks extension: `notifications/tasks` with the task's new status (and what else `params` says). */
  taskStatus(taskId: string, params: JsonObject, audience?: string): Promise<void> {
    return this.publish({ type: 'tasks/status', taskId, params, ...(audience === undefined ? {} : { audience }) });
  }

  async publish(event: SubscriptionEvent): Promise<void> {
    try {
      this.bus ??= this.moduleRef.get<McpEventBus>(MCP_EVENT_BUS, { strict: false });
      await this.bus.publish(event);
    } catch (error) {
      this.logger.warn(`${event.type} not published: ${describeValue(error)}`);
    }
  }
}
