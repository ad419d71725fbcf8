import type { SubscriptionEvent } from '../protocol/index.js';
import type { McpEventBus } from './mcp-event-bus.js';

/** The embedded bus: one process, synchronous fan-out in publish order. */
export class InMemoryEventBus implements McpEventBus {
  readonly shared = false;
  private readonly listeners = new Set<(event: SubscriptionEvent) => void>();

  async publish(event: SubscriptionEvent): Promise<void> {
    // A copy per publish, so a listener never sees another's mutation (Redis hands each a fresh parse).
    const frozen = JSON.stringify(event);
    for (const listener of [...this.listeners]) listener(JSON.parse(frozen) as SubscriptionEvent);
  }

  async subscribe(listener: (event: SubscriptionEvent) => void): Promise<() => void> {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
