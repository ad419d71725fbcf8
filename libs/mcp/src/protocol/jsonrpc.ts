import { ErrorCode } from './constants.js';
import { type JsonRpcId, type Rejection, reject } from './rejection.js';

export type JsonObject = Record<string, unknown>;

/** A JSON-RPC 2.0 request (has an id) or notification (no id). */
export interface JsonRpcMessage {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly id?: JsonRpcId;
  readonly params?: JsonObject;
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNotification(message: JsonRpcMessage): boolean {
  return message.id === undefined;
}

/** Reads the id only if it is a valid JSON-RPC id, so that errors can echo it (spec: echo whenever it could be read). */
export function readableId(value: unknown): JsonRpcId | null {
  if (!isPlainObject(value)) return null;
  const id = value.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Rungs 7–9 of docs/ladder.md §2: JSON, no batch, a JSON-RPC 2.0 request or notification. */
export function parseJsonRpc(text: string): JsonRpcMessage | Rejection {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject('parse_error', 400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON', null);
  }
  return validateJsonRpc(value);
}

export function validateJsonRpc(value: unknown): JsonRpcMessage | Rejection {
  if (Array.isArray(value)) {
    return reject(
      'batch_not_supported',
      400,
      ErrorCode.InvalidRequest,
      'Invalid Request: JSON-RPC batching is not supported; send one message per POST',
      null,
    );
  }
  const id = readableId(value);
  if (!isPlainObject(value)) return invalidRequest('the body must be a JSON-RPC 2.0 object', id);
  if (value.jsonrpc !== '2.0') return invalidRequest('"jsonrpc" must be "2.0"', id);
  if (typeof value.method !== 'string' || value.method.length === 0) {
    // A JSON-RPC response (result/error) is not accepted: this server never sends requests to clients.
    return invalidRequest('"method" must be a non-empty string', id);
  }
  if ('id' in value && id === null) return invalidRequest('"id" must be a string or a number', id);
  if ('params' in value && !isPlainObject(value.params)) return invalidRequest('"params" must be an object', id);
  return value as unknown as JsonRpcMessage;
}

function invalidRequest(why: string, id: JsonRpcId | null): Rejection {
  return reject('invalid_request', 400, ErrorCode.InvalidRequest, `Invalid Request: ${why}`, id);
}
