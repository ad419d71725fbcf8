/** Request builders: plain objects (headers and body), so that they work with any HTTP client. */
import {
  encodeHeaderValue,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  MODERN_REVISION,
} from '../protocol/index.js';

export interface McpTestRequest {
  headers: Record<string, string>;
  body: { jsonrpc: '2.0'; id?: string | number; method: string; params: Record<string, unknown> };
}

export interface ModernRequestOptions {
  id?: string | number;
  /** Default `{}`; e.g. `{ elicitation: {} }`. */
  capabilities?: Record<string, unknown>;
  clientInfo?: { name: string; version: string } | null;
  /** Omit the id: a notification. */
  notification?: boolean;
  protocolVersion?: string;
}

let nextId = 1;

/** A 2026-07-28 request: the `_meta` envelope plus the headers that must mirror it. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): McpTestRequest {
  const version = options.protocolVersion ?? MODERN_REVISION;
  const meta: Record<string, unknown> = {
    ...((params._meta as Record<string, unknown>) ?? {}),
    [META_PROTOCOL_VERSION]: version,
    [META_CLIENT_CAPABILITIES]: options.capabilities ?? {},
  };
  if (options.clientInfo !== null)
    meta[META_CLIENT_INFO] = options.clientInfo ?? { name: 'test-client', version: '1.0.0' };
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': version,
    'Mcp-Method': method,
  };
  const name =
    method === 'resources/read'
      ? params.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params.name
        : method.startsWith('tasks/')
          ? params.taskId
          : undefined;
  if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name);
  const body: McpTestRequest['body'] = { jsonrpc: '2.0', method, params: { ...params, _meta: meta } };
  if (!options.notification) body.id = options.id ?? nextId++;
  return { headers, body };
}

/** A 2025-era request; `protocolVersion` is sent as the MCP-Protocol-Version header unless null. */
export function legacyRequest(
  method: string,
  params: Record<string, unknown> = {},
  options: { id?: string | number; protocolVersion?: string | null; notification?: boolean } = {},
): McpTestRequest {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  const version = options.protocolVersion === undefined ? '2025-06-18' : options.protocolVersion;
  if (version !== null) headers['MCP-Protocol-Version'] = version;
  const body: McpTestRequest['body'] = { jsonrpc: '2.0', method, params };
  if (!options.notification) body.id = options.id ?? nextId++;
  return { headers, body };
}

/** The 2025 handshake's `initialize` request (sent without a version header, as clients do). */
export function legacyInitialize(
  protocolVersion = '2025-06-18',
  clientInfo = { name: 'test-client', version: '1.0.0' },
): McpTestRequest {
  return legacyRequest('initialize', { protocolVersion, capabilities: {}, clientInfo }, { protocolVersion: null });
}
