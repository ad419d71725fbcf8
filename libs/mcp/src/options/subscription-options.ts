import type { McpPrincipal } from '../auth/principal.js';
import type { McpEventBus } from '../events/mcp-event-bus.js';

/** `McpModuleOptions.subscriptions`: what the server delivers on `subscriptions/listen` (2026 only). */
export interface McpSubscriptionOptions {
  /** Where published changes travel (default: in memory, this process only). Give a shared bus with several replicas. */
  eventBus?: McpEventBus;
  /** Offer `notifications/tools/list_changed` (advertised as `tools.listChanged`). */
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** Offer per-URI `notifications/resources/updated` (advertised as `resources.subscribe`). */
  resourceSubscriptions?: boolean;
  /**
   * Tasks extension: whether the principal may follow this task (offered only when given). An
   * unknown task and another principal's are refused alike.
   */
  authorizeTask?: (principal: McpPrincipal | undefined, taskId: string) => boolean | Promise<boolean>;
  /**
   * Tasks extension, for the module's own tasks (the `tasks` source): streams may follow the task
   * ids the module minted for their caller (checked as `tasks/get` checks them), and a change the
   * app reports through `McpTaskEvents.changed()` with the task's state becomes
   * `notifications/tasks` on the event bus. Ignored without a `tasks` source.
   */
  tasks?: boolean;
  /**
   * Who may hear an event: a stream hears an event published with an `audience` only when this
   * gives the same value for its principal (e.g. the organisation). Computed once per stream.
   */
  audience?: (principal: McpPrincipal | undefined) => string | undefined | Promise<string | undefined>;
  /**
   * Streams one principal (principalKey) may hold open on one process (default 10): per process,
   * where a stream's cost lies (docs/listen.md says why not deployment-wide).
   */
  maxStreamsPerPrincipal?: number;
  /** Resource URIs plus task ids one stream may follow (default 100). */
  maxSubscriptionsPerStream?: number;
  /** Interval of the SSE comment that keeps idle streams open through proxies (default 15000 ms). */
  heartbeatMs?: number;
  /** Queued bytes past which a stream that does not read is ended (default 1 MiB). */
  maxBufferedBytes?: number;
  /**
   * How long a stream the server ended (it stopped reading, its token expired, shutdown) may take
   * to deliver its last message before its connection is reset (default 5000 ms). Its slot in
   * `maxStreamsPerPrincipal` counts until the connection has closed, so a caller that stops
   * reading cannot hold more connections than streams; the 429 for too many streams says
   * `Retry-After` this long (in whole seconds, at least 1).
   */
  closeTimeoutMs?: number;
  /**
   * Streams written per event-loop turn while an event fans out (default 64): a larger fan-out
   * continues at the next turn, so requests are served in between; the publish order holds.
   */
  deliveryBatch?: number;
}
