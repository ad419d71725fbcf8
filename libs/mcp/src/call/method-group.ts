import type { McpMethodHandler } from './mcp-call.js';

/** The handlers of one area of the protocol (lifecycle, tools, listen…), as the dispatcher routes to them. */
export interface McpMethodGroup {
  handlers(): McpMethodHandler[];
}

/**
 * The `subscriptions/listen` group, provided under this token (mcp.module.ts) so that dispatch/
 * routes to it without importing subscriptions/, which sits on the same floor.
 */
export const LISTEN_METHODS = Symbol('LISTEN_METHODS');
