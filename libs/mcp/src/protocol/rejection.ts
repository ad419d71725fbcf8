import { ErrorCode } from './constants.js';

export type JsonRpcId = string | number;

/**
 * One refusal of the ladder (spec docs/ladder.md §2). `rung` is a stable name, so that every rejection
 * can be asserted and logged by name rather than by message text.
 */
export interface Rejection {
  readonly rung: RejectionRung;
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
  /** The request id when it could be read; null otherwise. */
  readonly id: JsonRpcId | null;
  readonly headers?: Readonly<Record<string, string>>;
  /** When set, the body is sent exactly as this string (rung 2/6: the seed's fixed 413 body). */
  readonly exactBody?: string;
}

export type RejectionRung =
  | 'origin_forbidden'
  | 'body_too_large'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'parse_error'
  | 'batch_not_supported'
  | 'invalid_request'
  | 'nesting_too_deep'
  | 'envelope_invalid'
  | 'version_header_mismatch'
  | 'unsupported_version'
  | 'modern_header_without_envelope'
  | 'header_missing'
  | 'header_mismatch'
  | 'method_not_found'
  | 'invalid_params'
  | 'missing_client_capability'
  | 'insufficient_scope'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export function reject(
  rung: RejectionRung,
  status: number,
  code: number,
  message: string,
  id: JsonRpcId | null,
  extra: { data?: unknown; headers?: Record<string, string>; exactBody?: string } = {},
): Rejection {
  return { rung, status, code, message, id, ...extra };
}

export function isRejection(value: unknown): value is Rejection {
  return typeof value === 'object' && value !== null && 'rung' in value && 'code' in value && 'status' in value;
}

export function bodyTooLarge(limit: number): Rejection {
  const message = `Request body too large (limit ${limit} bytes)`;
  return reject('body_too_large', 413, ErrorCode.InvalidRequest, message, null, {
    exactBody: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message } }),
  });
}

/** The body nests deeper than the door allows (one limit for every later walk over the value). */
export function nestingTooDeep(limit: number, id: JsonRpcId | null): Rejection {
  return reject(
    'nesting_too_deep',
    400,
    ErrorCode.InvalidRequest,
    `Invalid Request: JSON nested deeper than ${limit} levels`,
    id,
    {
      data: { max_depth: limit },
    },
  );
}

export function originForbidden(origin: string): Rejection {
  return reject('origin_forbidden', 403, ErrorCode.InvalidRequest, `Forbidden origin: ${origin}`, null);
}

export function methodNotAllowed(method: string): Rejection {
  return reject('method_not_allowed', 405, ErrorCode.InvalidRequest, `Method not allowed: ${method}; use POST`, null, {
    headers: { Allow: 'POST' },
  });
}

export function unsupportedMediaType(contentType: string | undefined): Rejection {
  const got = contentType ? `'${contentType}'` : 'none';
  return reject(
    'unsupported_media_type',
    415,
    ErrorCode.InvalidRequest,
    `Unsupported Content-Type ${got}; expected application/json`,
    null,
  );
}

export function internalError(id: JsonRpcId | null, requestId?: string): Rejection {
  const message = requestId ? `Internal error (request id ${requestId})` : 'Internal error';
  return reject('internal_error', 500, ErrorCode.InternalError, message, id);
}

export function headerMismatch(
  id: JsonRpcId | null,
  detail: string,
  rung: 'header_missing' | 'header_mismatch' = 'header_mismatch',
): Rejection {
  return reject(rung, 400, ErrorCode.HeaderMismatch, `Header mismatch: ${detail}`, id);
}

export function unsupportedVersion(id: JsonRpcId | null, supported: readonly string[], requested: string): Rejection {
  return reject('unsupported_version', 400, ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', id, {
    data: { supported: [...supported], requested },
  });
}

/** Rung 14: 404 in the 2026 era (spec MUST), in-band 200 in the 2025 era. */
export function methodNotFound(id: JsonRpcId | null, method: string, modern: boolean): Rejection {
  return reject('method_not_found', modern ? 404 : 200, ErrorCode.MethodNotFound, `Method not found: ${method}`, id);
}

/** Rung 15: handler-level errors answer in-band (HTTP 200). */
export function invalidParams(id: JsonRpcId | null, message: string, data?: unknown): Rejection {
  return reject('invalid_params', 200, ErrorCode.InvalidParams, message, id, data === undefined ? {} : { data });
}

/** Rung 10: a budget is spent; the client retries after `retryAfter` seconds. */
export function tooManyRequests(id: JsonRpcId | null, retryAfter: number): Rejection {
  return reject('rate_limited', 429, ErrorCode.InvalidRequest, `Too many requests: retry after ${retryAfter} s`, id, {
    data: { retry_after: retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** A store or dependency cannot be reached: 503 with Retry-After, never an unchecked pass (docs/security.md §Failure). */
export function serviceUnavailable(id: JsonRpcId | null, retryAfter = 5, what = 'the rate-limit store'): Rejection {
  return reject(
    'service_unavailable',
    503,
    ErrorCode.InternalError,
    `Service unavailable (${what} cannot be reached): retry after ${retryAfter} s`,
    id,
    { data: { retry_after: retryAfter }, headers: { 'Retry-After': String(retryAfter) } },
  );
}

export function rejectionBody(r: Rejection): string {
  if (r.exactBody !== undefined) return r.exactBody;
  const error: { code: number; message: string; data?: unknown } = { code: r.code, message: r.message };
  if (r.data !== undefined) error.data = r.data;
  return JSON.stringify({ jsonrpc: '2.0', id: r.id, error });
}
