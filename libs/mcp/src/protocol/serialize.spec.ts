import { encodedOf, RawJson, serializeSuccess, sharedResult, successHead, successTail } from './serialize.js';

describe('pre-encoded success bodies', () => {
  const result = {
    tools: new RawJson('[{"name":"é","inputSchema":{"type":"object"}}]'),
    nextCursor: 'abc',
    _meta: { k: 'ü' },
  };

  it.each([1, 0, -7, 'req-1', 'quote"and\\back', null])(
    'head + tail are byte for byte serializeSuccess (id %s)',
    (id) => {
      const parts = Buffer.concat([successHead(id as never), successTail(result)]);
      expect(parts.equals(Buffer.from(serializeSuccess(id as never, result)))).toBe(true);
      expect(JSON.parse(parts.toString('utf8'))).toEqual({
        jsonrpc: '2.0',
        id,
        result: { tools: [{ name: 'é', inputSchema: { type: 'object' } }], nextCursor: 'abc', _meta: { k: 'ü' } },
      });
    },
  );

  it('a shared result carries its bytes cache; its copies (the era adapters spread it) and other results do not', () => {
    const shared = sharedResult({ tools: [] as unknown[] });
    expect(encodedOf(shared)).toBeInstanceOf(Map);
    expect(encodedOf({ ...shared })).toBeUndefined();
    expect(encodedOf({ tools: [] })).toBeUndefined();
    expect(Object.keys(shared)).toEqual(['tools']);
  });
});
