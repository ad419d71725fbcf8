/**
 * The method names of the MCP revisions this module knows (2025-03-26 to 2026-07-28, with the Tasks
 * extension): the well-known values of `mcp.method.name` in the OpenTelemetry conventions for MCP
 * (docs/gen-ai/mcp.md), plus the 2026 era's own methods.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/result',
  'tasks/list',
  'roots/list',
  'sampling/createMessage',
  'elicitation/create',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/roots/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/tasks',
  'notifications/tasks/status',
  'notifications/elicitation/complete',
]);

/** What telemetry records for a method no revision defines: one value, as the HTTP conventions do for methods. */
export const OTHER_METHOD = '_OTHER';

/**
 * The method as a telemetry label: its name when an MCP revision defines it, else `_OTHER`. A
 * client may send any method name; a label that took it as is would grow a metric series per name.
 */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : OTHER_METHOD;
}
