import { Injectable, Logger } from '@nestjs/common';
import type { McpTaskChange } from './task-source.js';
import { describeValue } from '../protocol/index.js';

type Listener = (change: McpTaskChange) => void;

/**
 * The hook point for task status notifications (`notifications/tasks` on a `subscriptions/listen`
 * stream, tasks.md §Task Status Notifications): the app calls `changed()` whenever one of its tasks
 * changes; a stream subscribes with `onChange()`. Nothing is kept here: with no listener a change
 * is simply dropped, and polling `tasks/get` stays the source of truth.
 */
@Injectable()
export class McpTaskEvents {
  private readonly logger = new Logger('McpTasks');
  private readonly listeners = new Set<Listener>();

  changed(change: McpTaskChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.warn(`a task change listener failed: ${describeValue(error)}`);
      }
    }
  }

  /** Returns the function that stops listening. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
