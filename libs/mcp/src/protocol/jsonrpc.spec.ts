import { parseJsonRpc } from './jsonrpc.js';

describe('parseJsonRpc (rungs 7–9)', () => {
  it('accepts a request and a notification', () => {
    expect(parseJsonRpc('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(parseJsonRpc('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({
      method: 'notifications/initialized',
    });
  });

  it.each([
    ['not JSON', '{', 'parse_error', -32700, null],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 'batch_not_supported', -32600, null],
    ['wrong version', '{"jsonrpc":"1.0","id":2,"method":"ping"}', 'invalid_request', -32600, 2],
    ['no method', '{"jsonrpc":"2.0","id":"a"}', 'invalid_request', -32600, 'a'],
    ['null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', 'invalid_request', -32600, null],
    ['boolean id', '{"jsonrpc":"2.0","id":true,"method":"ping"}', 'invalid_request', -32600, null],
    ['array params', '{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}', 'invalid_request', -32600, 3],
    ['a number', '42', 'invalid_request', -32600, null],
  ])('refuses %s', (_what, text, rung, code, id) => {
    expect(parseJsonRpc(text)).toMatchObject({ rung, code, id, status: 400 });
  });
});
