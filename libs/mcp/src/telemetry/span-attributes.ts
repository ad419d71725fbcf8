import type { Attributes } from '@opentelemetry/api';
import type { Request } from 'express';
import type { McpTarget } from '../call/exchange.js';
import * as sc from './semconv.js';

/** A request span's attributes at its creation (the MCP conventions' "Server" span, mcp.md). */
export function requestAttributes(method: string, target: McpTarget, id: unknown, req: Request): Attributes {
  const attributes: Attributes = { [sc.ATTR_MCP_METHOD_NAME]: method, ...target.attributes };
  if (id !== undefined && id !== null) attributes[sc.ATTR_JSONRPC_REQUEST_ID] = String(id);
  if (target.uri) attributes[sc.ATTR_MCP_RESOURCE_URI] = target.uri;
  attributes[sc.ATTR_NETWORK_TRANSPORT] = 'tcp';
  attributes[sc.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  attributes[sc.ATTR_NETWORK_PROTOCOL_VERSION] = req.httpVersion;
  const address = req.socket.remoteAddress;
  if (address) {
    attributes[sc.ATTR_CLIENT_ADDRESS] = address;
    attributes[sc.ATTR_CLIENT_PORT] = req.socket.remotePort ?? 0;
  }
  return attributes;
}

/** An outcome's labels less those every request span has from its creation (requestAttributes). */
export function spanOnly(labels: Attributes): Attributes {
  const rest: Attributes = {};
  for (const key of [sc.ATTR_MCP_PROTOCOL_VERSION, sc.ATTR_ERROR_TYPE, sc.ATTR_RPC_RESPONSE_STATUS_CODE])
    if (labels[key] !== undefined) rest[key] = labels[key];
  return rest;
}
