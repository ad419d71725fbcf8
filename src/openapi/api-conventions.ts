/**
 * What every /api/v1 operation shares, as OpenAPI components (docs/kadu.md §Conventions of /api/v1):
 * the bearer scheme, the envelopes, the error body, the headers, and the errors common to a kind
 * of route. Operation-specific errors are declared on the route with `@ApiResponse`.
 */

type Schema = Record<string, unknown>;

export const SCHEME = 'bearer';
const ref = (kind: string, name: string): Schema => ({ $ref: `#/components/${kind}/${name}` });

export function securitySchemes(apiAudience: string, issuer: string): Record<string, Schema> {
  return {
    [SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        `An OAuth 2.1 access token (JWT) from the authorization server ${issuer}, whose audience is ${apiAudience} ` +
        '(resource indicator RFC 8707): tokens issued for the MCP endpoint are refused here. Each operation lists the ' +
        "scopes it needs; the member's role must also allow it (viewer < operator < admin < owner). The organisation " +
        'always comes from the token. In development: `npm run token -- --org acme --user ana@acme.test --role admin --aud api`.',
    },
  };
}

export const SCHEMAS: Record<string, Schema> = {
  ErrorItem: {
    type: 'object',
    required: ['code', 'title'],
    properties: {
      code: {
        type: 'string',
        description: 'Stable, machine-readable: validation_failed, not_found, insufficient_scope, …',
      },
      title: { type: 'string', description: 'A short human summary of the code' },
      detail: { type: 'string', description: 'What exactly was wrong' },
      param: { type: 'string', description: 'The input at fault, as a path (e.g. input.notes.1.memo)' },
    },
  },
  ErrorBody: {
    type: 'object',
    required: ['status', 'errors'],
    properties: {
      status: { type: 'integer', description: 'The HTTP status, repeated' },
      errors: { type: 'array', minItems: 1, items: ref('schemas', 'ErrorItem') },
    },
    examples: [
      {
        status: 422,
        errors: [
          { code: 'validation_failed', title: 'Validation failed', detail: 'name must be a string', param: 'name' },
        ],
      },
    ],
  },
  Envelope: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'object', description: 'The resource' } },
  },
  ListMeta: {
    type: 'object',
    required: ['next_cursor', 'limit'],
    properties: {
      next_cursor: {
        type: ['string', 'null'],
        description: 'Pass it as `cursor` (with the same filters) for the next page; null on the last page',
      },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
    },
  },
  ListEnvelope: {
    type: 'object',
    required: ['data', 'meta'],
    properties: {
      data: { type: 'array', items: { type: 'object' }, description: 'The page, newest first' },
      meta: ref('schemas', 'ListMeta'),
    },
  },
};

export const HEADERS: Record<string, Schema> = {
  'Request-Id': {
    description:
      'On every response: names the request in the logs. The X-Request-Id request header is echoed when it is 8–128 characters of A–Z a–z 0–9 . _ -',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  'WWW-Authenticate': {
    description: 'The bearer challenge (error="invalid_token" when a token was sent)',
    schema: { type: 'string' },
  },
};

export const IDEMPOTENCY_PARAMETER = 'IdempotencyKey';

export const PARAMETERS: Record<string, Schema> = {
  [IDEMPOTENCY_PARAMETER]: {
    name: 'X-Idempotency-Key',
    in: 'header',
    required: false,
    description:
      "Makes a write safe to retry (the tools' `idempotency_key`). Scoped to your organisation and kept 24 h: a retry with the same key and the " +
      'same parameters replays the first status and body; other parameters → 422 idempotency_key_mismatch; while the first is still running → ' +
      '409 idempotency_key_in_use. Empty means no key.',
    schema: { type: 'string', maxLength: 255 },
  },
};

/** What a route is, for the errors it can answer. */
export interface RouteKind {
  bearer: boolean;
  pathId: boolean;
  body: boolean;
  input: boolean;
  lists: boolean;
  idempotent: boolean;
}

/** The errors any route of that kind can answer: status → the codes and when. */
export function commonErrors(kind: RouteKind): Map<number, string[]> {
  const errors = new Map<number, string[]>();
  const add = (status: number, cause: string) => errors.set(status, [...(errors.get(status) ?? []), cause]);
  if (kind.body) {
    add(400, '`invalid_json`: the body is not JSON; `nesting_too_deep`: it nests deeper than 64 levels');
    add(413, '`payload_too_large`: the body is over 1 MiB');
  }
  if (kind.lists) add(400, '`invalid_cursor`: the cursor was altered, or belongs to a listing with other filters');
  if (kind.bearer) {
    add(
      401,
      '`unauthorized`: no token, or one that is expired, not signed by the authorization server, or for another audience',
    );
    add(
      403,
      "`insufficient_scope`: the token lacks a scope this operation needs; `forbidden`: the member's role does not allow it",
    );
  }
  if (kind.pathId)
    add(
      404,
      "`not_found`: no such id in your organisation (another organisation's ids, malformed and deleted ones alike)",
    );
  if (kind.idempotent)
    add(409, '`idempotency_key_in_use`: the first request with this X-Idempotency-Key is still running');
  if (kind.body || kind.input)
    add(
      422,
      '`validation_failed`: a field or parameter is missing, unknown, of the wrong type, out of range or holds a NUL or lone surrogate (`param` names it)',
    );
  if (kind.idempotent) add(422, '`idempotency_key_mismatch`: the X-Idempotency-Key was used with other parameters');
  if (kind.bearer) {
    add(429, '`rate_limited`: over the per-member budget (or too many failed logins from this address)');
    add(
      503,
      '`service_unavailable`, `database_unavailable`, `storage_unavailable`: a dependency cannot be reached; retry after Retry-After',
    );
  }
  return errors;
}

/** Headers that go with an error status. */
export function errorHeaders(status: number): Record<string, Schema> {
  const headers: Record<string, Schema> = { 'Request-Id': ref('headers', 'Request-Id') };
  if (status === 401) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
  if (status === 429) {
    for (const name of ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
      headers[name] = ref('headers', name);
  }
  if (status === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
  return headers;
}

export const requestIdHeader = (): Record<string, Schema> => ({ 'Request-Id': ref('headers', 'Request-Id') });
export const errorBodyContent = (): Schema => ({ 'application/json': { schema: ref('schemas', 'ErrorBody') } });
export const envelopeContent = (lists: boolean): Schema => ({
  'application/json': { schema: ref('schemas', lists ? 'ListEnvelope' : 'Envelope') },
});
export const idempotencyParameter = (): Schema => ref('parameters', IDEMPOTENCY_PARAMETER);
