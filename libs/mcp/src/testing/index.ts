/**
 * `@kobana/nest-mcp/testing`: helpers for testing an app that adopts McpModule, with supertest or
 * any HTTP client, under any test runner (assertions throw node:assert's AssertionError):
 *
 *   const { headers, body } = modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });
 *   const res = await request(app.getHttpServer()).post('/mcp').set(headers).set('Authorization', token).send(body);
 *   const result = expectRpcResult(res, body.id!);
 */
export {
  legacyInitialize,
  legacyRequest,
  modernRequest,
  type McpTestRequest,
  type ModernRequestOptions,
} from './requests.js';
export {
  BODY_TOO_LARGE_ANSWER,
  expectRpcError,
  expectRpcResult,
  type McpTestResponse,
  type RpcErrorBody,
} from './assertions.js';
export { rawPost, type RawResponse } from './raw-http.js';
export { ListenStream, SUB, type StreamMessage } from './listen-stream.js';
