import { AssertionError } from 'node:assert';
import { expectRpcError, expectRpcResult, type McpTestResponse } from './assertions.js';

/** The exported assertions pass what the endpoint answers and refuse everything else, saying why. */
const answer = (status: number, body: unknown, headers: Record<string, string> = {}): McpTestResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  text: typeof body === 'string' ? body : JSON.stringify(body),
});
const error = { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool: x', data: { a: 1 } } };
const result = { jsonrpc: '2.0', id: 'r', result: { content: [] } };

describe('expectRpcError', () => {
  it('returns the error member of a matching answer', () => {
    expect(expectRpcError(answer(200, error), 200, -32602, 7)).toEqual(error.error);
    expect(expectRpcError(answer(400, { ...error, id: null }), 400, -32602)).toMatchObject({ code: -32602 });
  });

  it.each<[string, McpTestResponse, RegExp]>([
    ['another status', answer(400, error), /HTTP status 400, expected 200/],
    ['another code', answer(200, { ...error, error: { ...error.error, code: -32600 } }), /error code -32600/],
    ['another id', answer(200, { ...error, id: 8 }), /the id 8/],
    ['a result instead of an error', answer(200, { ...result, id: 7 }), /carries no result/],
    ['a result beside the error', answer(200, { ...error, result: {} }), /carries no result/],
    ['a body on several lines', answer(200, JSON.stringify(error, null, 2)), /one compact line/],
    ['a cacheable answer', answer(200, error, { 'cache-control': 'max-age=60' }), /no-store/],
    ['HTML', answer(200, '<html>', { 'content-type': 'text/html' }), /not application\/json/],
    ['not JSON', answer(200, '{"jsonrpc":'), /not JSON/],
    ['not JSON-RPC 2.0', answer(200, { ...error, jsonrpc: '1.0' }), /jsonrpc/],
  ])('refuses %s', (_what, res, message) => {
    expect(() => expectRpcError(res, 200, -32602, 7)).toThrow(AssertionError);
    expect(() => expectRpcError(res, 200, -32602, 7)).toThrow(message);
  });
});

describe('expectRpcResult', () => {
  it('returns the result of a matching answer', () => {
    expect(expectRpcResult(answer(200, result), 'r')).toEqual({ content: [] });
  });

  it.each<[string, McpTestResponse, RegExp]>([
    ['an error', answer(200, { ...error, id: 'r' }), /an error instead of a result/],
    ['another status', answer(202, result), /HTTP status 202/],
    ['another id', answer(200, { ...result, id: 'q' }), /the id "q"/],
    ['a result that is not an object', answer(200, { ...result, result: [1] }), /not an object/],
  ])('refuses %s', (_what, res, message) => {
    expect(() => expectRpcResult(res, 'r')).toThrow(message);
  });
});
