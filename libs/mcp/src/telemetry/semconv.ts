/**
 * Attribute and instrument names of the OpenTelemetry semantic conventions for MCP (status:
 * Development), open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md ("Server" span and
 * "Metric: mcp.server.operation.duration"). Kept as plain strings: the module depends only on
 * `@opentelemetry/api`, and these names are still moving between semantic-convention releases.
 */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_NETWORK_PROTOCOL_VERSION = 'network.protocol.version';
export const ATTR_CLIENT_ADDRESS = 'client.address';
export const ATTR_CLIENT_PORT = 'client.port';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';

/** `error.type` of a `CallToolResult` with `isError: true` (mcp.md, note on `error.type`). */
export const TOOL_ERROR = 'tool_error';

export const METRIC_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
/** The buckets mcp.md asks for, in seconds. */
export const OPERATION_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Not in the conventions: budget refusals (429) of the module's rate limits, by budget and door. */
export const METRIC_RATE_LIMIT_REFUSALS = 'mcp.server.rate_limit.refusals';
