import { checkParamHeaders, paramHeadersOf } from './param-headers.js';
import type { JsonRpcMessage } from './jsonrpc.js';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
    query: { type: 'string' },
  },
};
const params = paramHeadersOf(schema);
const call = (args: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 't', arguments: args },
});
const check = (args: Record<string, unknown>, headers: Record<string, string>) =>
  checkParamHeaders(call(args), params, (n) => headers[n]);

describe('Mcp-Param-* headers', () => {
  it('collects the annotated top-level properties', () => {
    expect(params).toEqual([
      { property: 'region', header: 'mcp-param-region', type: 'string' },
      { property: 'count', header: 'mcp-param-count', type: 'integer' },
      { property: 'dry', header: 'mcp-param-dry-run', type: 'boolean' },
    ]);
  });

  it('refuses invalid definitions', () => {
    expect(() => paramHeadersOf({ properties: { x: { type: 'number', 'x-mcp-header': 'X' } } })).toThrow(
      /string, integer or boolean/,
    );
    expect(() => paramHeadersOf({ properties: { x: { type: 'string', 'x-mcp-header': 'Bad Name' } } })).toThrow(
      /token/,
    );
    expect(() =>
      paramHeadersOf({
        properties: { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } },
      }),
    ).toThrow(/twice/);
  });

  it.each([
    [{ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8=?=' }],
    [{ region: 'SGVsbG8=' }, { 'mcp-param-region': 'SGVsbG8=' }],
    [{ region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' }],
    [{ count: 42 }, { 'mcp-param-count': '42.0' }],
    [{ dry: false }, { 'mcp-param-dry-run': 'false' }],
    [{ query: 'x' }, {}],
    [{ region: null }, {}],
  ])('accepts %j with %j', (args, headers) => expect(check(args, headers)).toBeUndefined());

  it.each([
    [{ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }],
    [{ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }],
    [{ region: 'test-value' }, {}],
    [{ region: 'a' }, { 'mcp-param-region': 'b' }],
    [{ count: 42 }, { 'mcp-param-count': '43' }],
    [{ dry: true }, { 'mcp-param-dry-run': 'TRUE' }],
  ])('refuses %j with %j (400 -32020)', (args, headers) =>
    expect(check(args, headers)).toMatchObject({ status: 400, code: -32020 }),
  );
});
