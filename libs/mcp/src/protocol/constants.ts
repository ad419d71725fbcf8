/** Protocol revisions the module knows, newest first. */
export const MODERN_REVISION = '2026-07-28';
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const KNOWN_REVISIONS = [MODERN_REVISION, ...LEGACY_REVISIONS] as const;
export type KnownRevision = (typeof KNOWN_REVISIONS)[number];

/** A legacy request with no MCP-Protocol-Version header is 2025-03-26 (2025-11-25 transports §Protocol Version Header). */
export const HEADERLESS_LEGACY_REVISION = '2025-03-26';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** Header names in lower case, as Node exposes them. */
export const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version';
export const HEADER_METHOD = 'mcp-method';
export const HEADER_NAME = 'mcp-name';
export const HEADER_PARAM_PREFIX = 'mcp-param-';
/** The same header as the server writes it, in the spelling the specification uses. */
export const HEADER_MCP_PROTOCOL_VERSION = 'MCP-Protocol-Version';

export const DEFAULT_BODY_LIMIT = 1_048_576;

/** JSON-RPC and MCP error codes used on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export function isModernRevision(revision: string): boolean {
  return revision === MODERN_REVISION;
}

export function isLegacyRevision(revision: string): boolean {
  return (LEGACY_REVISIONS as readonly string[]).includes(revision);
}
