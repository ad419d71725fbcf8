import { AssertionError, deepStrictEqual, strictEqual } from 'node:assert';

/** What the assertions read of an answer: supertest's Response has it, and so does `rawPost`'s with `text`. */
export interface McpTestResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as sent. */
  readonly text: string;
}

/** A JSON-RPC error member. */
export interface RpcErrorBody {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * The exact 413 answer of the default 1 MiB body limit (docs/ladder.md §2, rungs 2 and 6), written
 * out rather than computed, so that a test comparing with it pins the bytes.
 */
export const BODY_TOO_LARGE_ANSWER =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large (limit 1048576 bytes)"}}';

/** The checks every JSON-RPC answer of the endpoint passes: status, JSON, no-store, one compact line. */
function parsedAnswer(res: McpTestResponse, status: number): Record<string, unknown> {
  strictEqual(res.status, status, `HTTP status ${res.status}, expected ${status}: ${res.text}`);
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json'))
    throw new AssertionError({ message: `Content-Type ${type || '(none)'} is not application/json: ${res.text}` });
  strictEqual(res.headers['cache-control'], 'no-store', 'Cache-Control must be no-store');
  if (res.text.includes('\n')) throw new AssertionError({ message: `the body is not one compact line: ${res.text}` });
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new AssertionError({ message: `the body is not JSON: ${res.text}` });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AssertionError({ message: `the body is not a JSON-RPC object: ${res.text}` });
  strictEqual((body as { jsonrpc?: unknown }).jsonrpc, '2.0', 'jsonrpc must be "2.0"');
  return body as Record<string, unknown>;
}

/**
 * Asserts a JSON-RPC error answer as docs/ladder.md §2 fixes it — HTTP status, code, echoed id,
 * compact body, `Cache-Control: no-store`, no result — and returns its error member.
 */
export function expectRpcError(
  res: McpTestResponse,
  status: number,
  code: number,
  id: string | number | null = null,
): RpcErrorBody {
  const body = parsedAnswer(res, status);
  strictEqual(body.id, id, `the id ${JSON.stringify(body.id)} is not the expected ${JSON.stringify(id)}`);
  strictEqual(body.result, undefined, `an error answer carries no result: ${res.text}`);
  const error = body.error as RpcErrorBody | undefined;
  if (typeof error !== 'object' || error === null)
    throw new AssertionError({ message: `no error member: ${res.text}` });
  strictEqual(error.code, code, `error code ${error.code}, expected ${code}: ${res.text}`);
  strictEqual(typeof error.message, 'string', 'the error message must be a string');
  return error;
}

/** Asserts a JSON-RPC success (200, echoed id, compact, no-store, no error) and returns its result. */
export function expectRpcResult(res: McpTestResponse, id: string | number): Record<string, unknown> {
  const body = parsedAnswer(res, 200);
  strictEqual(body.id, id, `the id ${JSON.stringify(body.id)} is not the expected ${JSON.stringify(id)}`);
  deepStrictEqual(body.error, undefined, `an error instead of a result: ${res.text}`);
  const result = body.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result))
    throw new AssertionError({ message: `the result is not an object: ${res.text}` });
  return result as Record<string, unknown>;
}
