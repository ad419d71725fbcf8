import type { McpPrincipal } from '../auth/principal.js';
import type { McpCall } from '../call/mcp-call.js';

/**
 * Whether a principal may read a resource now, decided as `resources/read` decides it: the catalog,
 * scopes, roles and the app's own check behind the resource (such as the organisation). Declared
 * here, below dispatch/ and subscriptions/, so that a listen stream asks it without knowing the
 * handler that answers it (dispatch/resource.handler.ts provides it, wired in mcp.module.ts).
 */
export abstract class ResourceAccess {
  /**
   * Resolves when `principal` could read `uri`; otherwise rejects with the refusal `resources/read`
   * would answer — "Resource not found" alike for another organisation's resource and a missing
   * one, the 403 challenge for a missing scope. `on` is the request asking (its id, era and HTTP
   * exchange, in which the app's method runs).
   */
  abstract canRead(principal: McpPrincipal | undefined, uri: string, on: McpCall): Promise<void>;
}
