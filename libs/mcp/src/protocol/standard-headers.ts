import { HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION } from './constants.js';
import { describeValue, stringField } from './client-values.js';
import { decodeHeaderValue } from './header-value.js';
import type { JsonRpcMessage } from './jsonrpc.js';
import { headerMismatch, type Rejection } from './rejection.js';

export type HeaderReader = (lowerCaseName: string) => string | undefined;

/** Which body field `Mcp-Name` mirrors, per method (2026-07-28 streamable-http §Request Metadata). */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // Tasks extension, tasks.md §Streamable HTTP: Routing Headers.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * Rung 12 (2026 era only): MCP-Protocol-Version, Mcp-Method and Mcp-Name must be present and agree
 * with the body. Names are case-insensitive (Node lower-cases them), values are case-sensitive, and
 * surrounding whitespace is ignored (RFC 9110 OWS). Notifications: the spec defines no required
 * headers for them, so only a present header that disagrees is refused.
 */
export function checkStandardHeaders(message: JsonRpcMessage, header: HeaderReader): Rejection | undefined {
  const id = message.id ?? null;
  const notification = message.id === undefined;

  const version = header(HEADER_PROTOCOL_VERSION)?.trim();
  if (version === undefined || version === '') {
    if (!notification) return headerMismatch(id, 'MCP-Protocol-Version header is required', 'header_missing');
  }

  const method = header(HEADER_METHOD)?.trim();
  if (method === undefined || method === '') {
    if (!notification)
      return headerMismatch(id, `Mcp-Method header is required (expected '${message.method}')`, 'header_missing');
  } else if (method !== message.method) {
    return headerMismatch(id, `Mcp-Method header '${method}' does not match body method '${message.method}'`);
  }

  const source = NAME_SOURCE[message.method];
  if (source === undefined) return undefined;
  // The body's value is the client's: it is shown, never coerced (issue 34: `{"toString":false}`).
  const expected = message.params?.[source];
  const shown = describeValue(expected);
  const rawName = header(HEADER_NAME);
  if (rawName === undefined || rawName.trim() === '') {
    return headerMismatch(
      id,
      `Mcp-Name header is required for ${message.method} (expected '${shown}')`,
      'header_missing',
    );
  }
  const decoded = decodeHeaderValue(rawName);
  if (!decoded.ok) return headerMismatch(id, `Mcp-Name header is malformed: ${decoded.reason}`);
  if (stringField(message.params, source) !== decoded.value) {
    return headerMismatch(id, `Mcp-Name header '${decoded.value}' does not match body ${source} '${shown}'`);
  }
  return undefined;
}
