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

  it('gives the same answer around the bound where the scan is skipped (as many brackets as the limit)', () => {
    // Exactly `limit` openers: skipped, never too deep; one more: scanned, too deep only when nested.
    expect(jsonTextTooDeep(`{"a":${'['.repeat(3)}${']'.repeat(3)}}`, 4)).toBe(false);
    expect(jsonTextTooDeep(`{"a":${'['.repeat(4)}${']'.repeat(4)}}`, 4)).toBe(true);
    expect(jsonTextTooDeep('[{},{},{},{},{}]', 2)).toBe(false);
    expect(jsonTextTooDeep('[[{}],{},{}]', 2)).toBe(true);
    expect(jsonTextTooDeep('{"a":"{{{{"}', 1)).toBe(false);
    expect(jsonTextTooDeep('{"a":"{{{{","b":{}}', 1)).toBe(true);
    expect(jsonTextTooDeep('', 0)).toBe(false);
    expect(jsonTextTooDeep('{}', 0)).toBe(true);
  });

  it('agrees with a plain scan on drawn texts of brackets, quotes and escapes', () => {
    // The scan without the bound, as it was: the bound may only skip it when it answers false.
    const scan = (text: string, limit: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '{' || c === '[') {
          if (++depth > limit) return true;
        } else if (c === '}' || c === ']') depth--;
      }
      return false;
    };
    let seed = 32;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = '{}[]"\\a,';
    for (let n = 0; n < 5000; n++) {
      let text = '';
      for (let i = Math.floor(next() * 24); i > 0; i--) text += alphabet[Math.floor(next() * alphabet.length)];
      const limit = Math.floor(next() * 6);
      expect(jsonTextTooDeep(text, limit), `${text} / ${limit}`).toBe(scan(text, limit));
    }
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
