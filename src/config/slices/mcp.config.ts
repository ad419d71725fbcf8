import { count, milliseconds, text } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

class McpEnv {
  @Env(text, {
    defaultText: 'generated in `DATA_DIR`',
    allowed: 'at least 32 bytes; required in production',
    meaning: 'secret shared by replicas, seals cursors and request state',
  })
  MCP_STATE_KEY?: string;

  @Env(count, {
    default: '10',
    meaning: '`subscriptions/listen`: open streams one member may hold on one replica (more → 429)',
  })
  KADU_LISTEN_MAX_STREAMS!: number;

  @Env(count, {
    default: '100',
    meaning: '`subscriptions/listen`: resource URIs one stream may follow (more → `-32602`)',
  })
  KADU_LISTEN_MAX_SUBSCRIPTIONS!: number;

  @Env(milliseconds, { default: '15000', meaning: '`subscriptions/listen`: interval of the keep-alive comment' })
  KADU_LISTEN_HEARTBEAT_MS!: number;
}

export interface McpConfig {
  readonly mcpStateKey?: string;
  /** subscriptions/listen: streams one member may hold open on one replica (KADU_LISTEN_MAX_STREAMS). */
  readonly listenMaxStreams: number;
  /** subscriptions/listen: resource URIs one stream may follow (KADU_LISTEN_MAX_SUBSCRIPTIONS). */
  readonly listenMaxSubscriptions: number;
  /** subscriptions/listen: interval of the keep-alive comment on idle streams (KADU_LISTEN_HEARTBEAT_MS). */
  readonly listenHeartbeatMs: number;
}

export const mcpConfig = defineSlice(
  'mcp',
  McpEnv,
  ['mcpStateKey', 'listenMaxStreams', 'listenMaxSubscriptions', 'listenHeartbeatMs'],
  (values): McpConfig => ({
    mcpStateKey: values.MCP_STATE_KEY,
    listenMaxStreams: values.KADU_LISTEN_MAX_STREAMS,
    listenMaxSubscriptions: values.KADU_LISTEN_MAX_SUBSCRIPTIONS,
    listenHeartbeatMs: values.KADU_LISTEN_HEARTBEAT_MS,
  }),
);
