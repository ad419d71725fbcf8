import {
  describeError,
  describeValue,
  McpRejectionError,
  stringField,
  stringParam,
  withConvertibleValues,
} from './client-values.js';
import { invalidParams } from './rejection.js';

/** Issue 34: client values are read without coercion; what cannot be coerced is shown, never thrown. */
const hostile = [
  JSON.parse('{"toString":false}'),
  JSON.parse('{"valueOf":1,"toString":2}'),
  JSON.parse('{"__proto__":{"toString":false}}'),
  JSON.parse('{"constructor":{"prototype":null}}'),
  Object.create(null),
  {
    [Symbol.toPrimitive]: () => {
      throw new Error('no');
    },
  },
];

describe('stringField and stringParam', () => {
  it('read an own string property and nothing else', () => {
    expect(stringField({ name: 'x' }, 'name')).toBe('x');
    expect(stringField({ name: '' }, 'name')).toBe('');
    for (const value of [...hostile, 1, null, true, ['x']])
      expect(stringField({ name: value }, 'name')).toBeUndefined();
    expect(stringField(Object.create({ name: 'inherited' }), 'name')).toBeUndefined();
    expect(stringField(undefined, 'name')).toBeUndefined();
    expect(stringField('name', 'length')).toBeUndefined();
  });

  it('stringParam throws the rejection the caller builds, with the value as describeValue shows it', () => {
    const refuse = (shown: string) => invalidParams(7, `Unknown tool: ${shown}`);
    expect(stringParam({ name: 'a' }, 'name', refuse)).toBe('a');
    let thrown: unknown;
    try {
      stringParam(JSON.parse('{"name":{"toString":false}}'), 'name', refuse);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpRejectionError);
    expect((thrown as McpRejectionError).rejection).toMatchObject({
      code: -32602,
      id: 7,
      message: 'Unknown tool: {"toString":false}',
    });
  });
});

describe('describeValue', () => {
  it('never throws, whatever the value', () => {
    for (const value of hostile) expect(typeof describeValue(value)).toBe('string');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeValue(cyclic)).toBe('[object]');
    expect(describeValue([1n])).toBe('[array]');
  });

  it('spells primitives as String does, errors by their message, objects as cut JSON', () => {
    expect(describeValue('a\ud800')).toBe('a\ud800');
    expect(describeValue(12)).toBe('12');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(Symbol('s'))).toBe('Symbol(s)');
    expect(describeValue(new TypeError('bad'))).toBe('bad');
    expect(describeValue({ toString: false })).toBe('{"toString":false}');
    expect(describeValue({ long: 'x'.repeat(500) })).toHaveLength(201);
    expect(describeValue({ a: 1 }, 3)).toBe('{"a…');
  });

  it('describeError gives the stack of an Error, the description of anything else', () => {
    const error = new Error('boom');
    expect(describeError(error)).toBe(error.stack);
    expect(describeError(JSON.parse('{"toString":false}'))).toBe('{"toString":false}');
  });
});

describe('withConvertibleValues', () => {
  it('replaces what cannot become a primitive by NaN, keeps everything else, own __proto__ keys included', () => {
    const input = JSON.parse(
      '{"a":{"toString":false},"b":[1,{"valueOf":1,"toString":2}],"c":{"d":"x"},"__proto__":{"toString":false},"e":[[{"toString":null}]]}',
    ) as Record<string, unknown>;
    const out = withConvertibleValues(input) as Record<string, unknown>;
    expect(out.a).toBeNaN();
    expect(out.b).toBeNaN();
    expect(out.c).toEqual({ d: 'x' });
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.e).toBeNaN();
    expect(withConvertibleValues('s')).toBe('s');
  });
});
