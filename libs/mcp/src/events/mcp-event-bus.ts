import type { SubscriptionEvent } from '../protocol/index.js';
import { describeValue } from '../protocol/index.js';

/**
 * Carries the changes a server publishes (a tool list changed, a resource was updated…) to the
 * `subscriptions/listen` streams of every process that shares it, like the state store carries
 * state: in memory for one process, Redis pub/sub across replicas. Delivery is at most once and in
 * publish order per publisher; a listener that misses an event (a reconnect) re-reads, which is
 * why polling stays the documented path and listen is the shortcut.
 */
export interface McpEventBus {
  /** True when every replica that shares the backing service sees the events (false: this process only). */
  readonly shared: boolean;
  /** Sends the event to the subscribers of every process on the bus (this one included). */
  publish(event: SubscriptionEvent): Promise<void>;
  /** Once resolved, every event published afterwards reaches `listener`; call the result to stop. */
  subscribe(listener: (event: SubscriptionEvent) => void): Promise<() => void>;
  close(): Promise<void>;
}

export const MCP_EVENT_BUS = Symbol('MCP_EVENT_BUS');

/** The bus could not take the event (Redis away): the change is still stored, only its notification is lost. */
export class EventBusUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the MCP event bus is unavailable: ${describeValue(cause)}`);
    this.name = 'EventBusUnavailable';
  }
}
