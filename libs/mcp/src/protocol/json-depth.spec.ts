import { jsonTextTooDeep, jsonValueTooDeep } from './json-depth.js';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('the JSON depth limit', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(jsonTextTooDeep(nested(64), 64)).toBe(false);
    expect(jsonTextTooDeep(nested(65), 64)).toBe(true);
    expect(jsonTextTooDeep(`{"a":"${'['.repeat(500)}"}`, 64)).toBe(false);
    expect(jsonTextTooDeep(`{"a":"\\"${'{'.repeat(500)}"}`, 64)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
  });

  it('answers for a megabyte of brackets without parsing it, and for parsed values of any depth', () => {
    expect(jsonTextTooDeep(nested(500_000), 64)).toBe(true);
    const deep = JSON.parse(nested(100_000));
    expect(jsonValueTooDeep(deep, 64)).toBe(true);
    expect(jsonValueTooDeep({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(jsonValueTooDeep({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(jsonValueTooDeep('text', 0)).toBe(false);
  });
});
