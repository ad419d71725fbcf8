import { canonicalJson } from './canonical-json.js';

describe('canonical JSON', () => {
  it('sorts keys at every level and writes what JSON.stringify would', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"e":2,"f":1}]},"b":1}',
    );
    expect(canonicalJson({ u: undefined, f: () => 1, n: null, arr: [undefined, () => 1, NaN] })).toBe(
      '{"arr":[null,null,null],"n":null}',
    );
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });

  it('equal values in another key order give the same text', () => {
    expect(canonicalJson({ x: [{ b: 2, a: 1 }], y: 0 })).toBe(canonicalJson({ y: 0, x: [{ a: 1, b: 2 }] }));
  });

  it('does not overflow the stack on deep nesting (5,000 and 200,000 levels)', () => {
    let value: unknown = 1;
    for (let i = 0; i < 5_000; i++) value = { a: value };
    expect(canonicalJson(value)).toHaveLength(5_000 * 6 + 1);
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(canonicalJson(deep)).toHaveLength(400_000);
  });

  it('refuses a cycle instead of looping', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => canonicalJson(a)).toThrow(TypeError);
    const shared = { s: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"s":1},"b":{"s":1}}');
  });
});
