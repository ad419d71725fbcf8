import fc from 'fast-check';

/**
 * What the package's property tests throw at the endpoint (fast-check arbitraries), issue 34:
 * text an attacker would try, objects whose `toString`/`valueOf` are not functions, `__proto__`
 * and `constructor` as own keys (built by JSON.parse, as the endpoint's parser builds them), lone
 * surrogates, and strings long enough to reach the body limit. The app has its own (test/support/hostile.ts).
 */

/** Objects that throw when coerced, built by JSON.parse so that every key is an own key. */
export const coercionTrap = fc
  .constantFrom(
    '{"toString":false}',
    '{"valueOf":1,"toString":2}',
    '{"toString":null,"valueOf":null}',
    '{"__proto__":{"toString":false}}',
    '{"__proto__":null}',
    '{"constructor":{"prototype":{"toString":false}}}',
    '{"constructor":false,"toString":{}}',
    '{"toJSON":false,"toString":[]}',
    '[{"toString":false}]',
  )
  .map((text) => JSON.parse(text) as unknown);

/** Text: any code unit (lone surrogates included), NUL, id- and path-like strings. */
export const hostileString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '\udfff\ud800',
    '../../etc/passwd',
    '%00',
    '__proto__',
    'constructor',
  ),
);

/** A very long string: past every field limit, up to (and just over) a body limit of `limit` bytes. */
export const longString = (limit: number) =>
  fc
    .tuple(fc.constantFrom(3_000, 70_000, limit - 400, limit + 10), fc.constantFrom('x', 'é', '\ud800'))
    .map(([length, unit]) =>
      unit.repeat(Math.max(1, Math.floor(length / (unit === 'é' ? 2 : unit === '\ud800' ? 3 : 1)))),
    );

const scalar = fc.oneof(hostileString, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));

/** Any JSON value a client could send where a string is expected (shallow: the door's depth limit is tested elsewhere). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 3, arbitrary: coercionTrap },
  { weight: 1, arbitrary: fc.array(fc.oneof(scalar, coercionTrap), { maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.oneof(hostileString, fc.constantFrom('toString', 'valueOf', '__proto__')),
      fc.oneof(scalar, coercionTrap),
      { maxKeys: 3 },
    ),
  },
);

/**
 * Params for a method: an object of the keys the method reads (and strangers), each hostile,
 * sometimes own `__proto__`/`constructor` keys; as JSON text so that the server's parse builds them.
 */
export const hostileParams = (keys: readonly string[], limit: number): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(
      fc.dictionary(
        fc.constantFrom(...keys),
        fc.oneof({ weight: 12, arbitrary: hostileValue }, { weight: 1, arbitrary: longString(limit) }),
        {
          maxKeys: keys.length,
        },
      ),
      fc.option(fc.constantFrom('{"__proto__":{"name":"x"}}', '{"constructor":{"name":"x"}}', '{"toString":false}'), {
        nil: undefined,
      }),
    )
    .map(([fields, extra]) => ({
      ...(extra === undefined ? {} : (JSON.parse(extra) as Record<string, unknown>)),
      ...fields,
    }));
