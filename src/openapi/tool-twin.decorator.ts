import { ApiExtension } from '@nestjs/swagger';

/** The OpenAPI extension that names an operation's MCP tool (read by the description's builder and its tests). */
export const TOOL_TWIN_EXTENSION = 'x-mcp-tool';

export interface ToolTwinExtension {
  /** The `kadu_*` tool that runs the same service method. */
  name: string;
  /** The tool argument each path parameter is, e.g. `{ id: 'task_id' }`. */
  path_arguments?: Record<string, string>;
}

/**
 * Declares that a REST route and an MCP tool are the two doors of one service method, so the
 * tool's arguments are the route's path parameters (renamed as given), query parameters and body
 * fields, plus `idempotency_key` for the X-Idempotency-Key header. The API description carries it
 * as `x-mcp-tool`, takes the operation's summary from the tool, and a test checks that both
 * schemas agree.
 */
export function ToolTwin(name: string, pathArguments: Record<string, string> = {}): MethodDecorator {
  const twin: ToolTwinExtension = {
    name,
    ...(Object.keys(pathArguments).length > 0 ? { path_arguments: pathArguments } : {}),
  };
  return ApiExtension(TOOL_TWIN_EXTENSION, twin);
}
