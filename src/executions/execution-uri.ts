import type { McpContent } from '@kobana/nest-mcp';

/**
 * The one spelling of an execution's MCP resource: its template (resources/templates/list,
 * completions), the URI a `notifications/resources/updated` names, and the resource link a tool
 * result or a task result carries.
 */
export const EXECUTION_URI_TEMPLATE = 'kobana://kadu/executions/{id}';
export const EXECUTION_STEPS_URI_TEMPLATE = `${EXECUTION_URI_TEMPLATE}/steps`;

export const executionUri = (id: string): string => EXECUTION_URI_TEMPLATE.replace('{id}', id);
export const executionStepsUri = (id: string): string => EXECUTION_STEPS_URI_TEMPLATE.replace('{id}', id);

/** The execution's resource link, as kadu_tasks_run, kadu_executions_get and the task result show it. */
export function executionLink(id: string): McpContent {
  return {
    type: 'resource_link',
    uri: executionUri(id),
    name: 'execution',
    title: `Execution ${id}`,
    mimeType: 'application/json',
  };
}

/** The links of a tool result whose `data` is an execution (kadu_tasks_run, kadu_executions_get). */
export function executionLinks(value: unknown): McpContent[] {
  const id = (value as { data?: { id?: string } }).data?.id;
  return id ? [executionLink(id)] : [];
}
