import { expect } from 'vitest';
import type { Response } from 'supertest';

/** Asserts a JSON-RPC error answer as libs/mcp/docs/ladder.md §2 fixes it: status, code, echoed id, compact body, headers. */
export function expectRpcError(res: Response, status: number, code: number, id: string | number | null = null): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.text).not.toContain('\n');
  expect(res.body.jsonrpc).toBe('2.0');
  expect(res.body.id).toBe(id);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.result).toBeUndefined();
}

export function expectRpcResult(res: Response, id: string | number): Record<string, unknown> {
  expect(res.status, res.text).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.text).not.toContain('\n');
  expect(res.body.jsonrpc).toBe('2.0');
  expect(res.body.id).toBe(id);
  expect(res.body.error).toBeUndefined();
  return res.body.result as Record<string, unknown>;
}

export const SEED_413_BODY =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large (limit 1048576 bytes)"}}';

export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
