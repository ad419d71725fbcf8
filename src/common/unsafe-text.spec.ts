import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { findUnsafeText, findUnsafeTextWithoutShortcut } from './unsafe-text.js';

// Text that exercises both paths: NUL, lone and paired surrogates, backslashes and the text of the
// escapes the general path looks for (`\u0000`, `\ud800` as six characters), and plain text.
const piece = fc.constantFrom(
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d\ude00',
  '\\',
  '\\\\',
  '\\u0000',
  '\\ud800',
  '\\\\u0000',
  'u0000',
  'ud83d',
  '"',
  'a',
  'é',
  ' ',
  '',
);
const text = fc.oneof(
  fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 12 }),
);
const scalar = fc.oneof(
  { weight: 6, arbitrary: text },
  { weight: 2, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 10n) },
);
const key = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'toJSON') });
/** Own keys as JSON.parse makes them (`__proto__` included), on Object.prototype or on none. */
const objectOf = (value: fc.Arbitrary<unknown>) =>
  fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 6 }), fc.boolean()).map(([entries, bare]) => {
    const object: Record<string, unknown> = bare ? Object.create(null) : {};
    for (const [k, v] of entries) Object.defineProperty(object, k, { value: v, enumerable: true, writable: true });
    return object;
  });
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: scalar },
    {
      weight: 3,
      arbitrary: objectOf(fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: tie('value') })),
    },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom(new Date(0), new Map([['\u0000', 1]]), { toJSON: () => '\u0000' }) },
  ),
})).value;

describe('findUnsafeText', () => {
  it('answers as without its shortcut for flat values, on drawn inputs', async () => {
    await checkProperty(
      'findUnsafeText = findUnsafeTextWithoutShortcut',
      fc.property(value, fc.constantFrom('', 'id'), (input, root) => {
        expect(findUnsafeText(input, root)).toEqual(findUnsafeTextWithoutShortcut(input, root));
      }),
      { numRuns: 3_000 },
    );
  });

  it('still finds NUL and lone surrogates in flat values, keys and the value itself', () => {
    expect(findUnsafeText({ a: 'x\u0000' })).toEqual({ path: 'a', problem: 'a NUL character' });
    expect(findUnsafeText({ a: 1, b: 'x\ud800' })).toEqual({ path: 'b', problem: 'an unpaired UTF-16 surrogate' });
    expect(findUnsafeText({ ['k\udc00']: 1 })).toEqual({ path: 'k?', problem: 'an unpaired UTF-16 surrogate' });
    expect(findUnsafeText('\u0000', 'id')).toEqual({ path: 'id', problem: 'a NUL character' });
    expect(findUnsafeText({ a: '\ud83d\ude00', b: '\\u0000' })).toBeUndefined();
    expect(findUnsafeText({ text: 'hello', times: 2, on: true, none: null })).toBeUndefined();
  });
});
