import { HttpException, HttpStatus } from '@nestjs/common';
import type { Response } from 'express';
import { getHeldHeader } from '@kobana/nest-mcp';

export interface ApiErrorItem {
  code: string;
  title: string;
  detail?: string;
  param?: string;
}

/** The API's error envelope: `{"status":422,"errors":[{"code","title","detail","param"?}]}` (docs/kadu.md). */
export interface ApiErrorBody {
  status: number;
  errors: ApiErrorItem[];
}

export class ApiError extends HttpException {
  /** Response headers that go with the error (e.g. Retry-After on 429). */
  headers: Record<string, string> = {};

  constructor(status: number, code: string, title: string, detail?: string, param?: string) {
    super(envelope(status, [{ code, title, ...(detail ? { detail } : {}), ...(param ? { param } : {}) }]), status);
  }

  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  static many(status: number, errors: ApiErrorItem[]): ApiError {
    const error = new ApiError(status, 'x', 'x');
    Object.defineProperty(error, 'response', { value: envelope(status, errors) });
    return error;
  }

  static notFound(what = 'resource'): ApiError {
    return new ApiError(404, 'not_found', 'Not found', `No such ${what}`);
  }
}

function envelope(status: number, errors: ApiErrorItem[]): ApiErrorBody {
  return { status, errors };
}

const CODES: Record<number, [string, string]> = {
  [HttpStatus.BAD_REQUEST]: ['bad_request', 'Bad request'],
  [HttpStatus.UNAUTHORIZED]: ['unauthorized', 'Unauthorized'],
  [HttpStatus.FORBIDDEN]: ['forbidden', 'Forbidden'],
  [HttpStatus.NOT_FOUND]: ['not_found', 'Not found'],
  [HttpStatus.METHOD_NOT_ALLOWED]: ['method_not_allowed', 'Method not allowed'],
  [HttpStatus.CONFLICT]: ['conflict', 'Conflict'],
  [HttpStatus.PAYLOAD_TOO_LARGE]: ['payload_too_large', 'Payload too large'],
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: ['unsupported_media_type', 'Unsupported media type'],
  [HttpStatus.UNPROCESSABLE_ENTITY]: ['validation_failed', 'Validation failed'],
  [HttpStatus.TOO_MANY_REQUESTS]: ['rate_limited', 'Too many requests'],
};

/** The body the REST API sends for any HttpException — also what a tool's isError result carries. */
export function apiErrorBody(exception: HttpException): ApiErrorBody {
  const status = exception.getStatus();
  const response = exception.getResponse();
  if (isEnvelope(response)) return response;
  const [code, title] = CODES[status] ?? (status >= 500 ? ['internal_error', 'Internal error'] : ['error', 'Error']);
  const message =
    typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : response;
  const details = Array.isArray(message) ? message.map(String) : typeof message === 'string' ? [message] : [];
  if (details.length === 0) return envelope(status, [{ code, title }]);
  return envelope(
    status,
    details.map((detail) => ({ code, title, detail })),
  );
}

function isEnvelope(value: unknown): value is ApiErrorBody {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as ApiErrorBody).errors) && 'status' in value
  );
}

/** The API's answer to a failure of its own: no stack or detail leaks, only the request id the logs carry. */
export function internalErrorBody(requestId: string): ApiErrorBody {
  return {
    status: 500,
    errors: [{ code: 'internal_error', title: 'Internal error', detail: `Request id ${requestId}` }],
  };
}

/** The same answer when a REST reply fails as it is sent, at the end of the turn (the adapter's `failedReplyBody`). */
export function failedReplyBody(response: Response): ApiErrorBody {
  return internalErrorBody(String(getHeldHeader(response, 'Request-Id') ?? ''));
}
