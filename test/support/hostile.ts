import fc from 'fast-check';
import { expect } from 'vitest';
import type { Response } from 'supertest';

/**
 * What the fuzz suites throw at the doors (fast-check arbitraries), and what every answer must be.
 * KADU_FUZZ_SCALE=10 runs ten times as many cases; FUZZ_RUNS sets the runs of every property
 * (test/support/properties.ts), as `npm run fuzz:explore` does. The suites keep the default.
 */
export const FUZZ_SCALE = Number(process.env.KADU_FUZZ_SCALE ?? 1);
/** The MCP body limit Kadu runs with (src/config/app-config.ts `bodyLimit`). */
export const BODY_LIMIT = 1_048_576;

/**
 * Objects that throw when coerced (issue 34: `{"toString":false}` was a 500), built by JSON.parse
 * so that `__proto__` and `constructor` are own keys, as the server's parser builds them.
 */
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

/** A very long string: past every field limit, up to (and just over) the body limit. */
export const longText = fc
  .tuple(fc.constantFrom(3_000, 70_000, BODY_LIMIT - 600, BODY_LIMIT + 10), fc.constantFrom('x', 'é', '\ud800'))
  .map(([bytes, unit]) => unit.repeat(Math.max(1, Math.floor(bytes / (unit === 'x' ? 1 : unit === 'é' ? 2 : 6)))));

/** Text an attacker would try: NUL, lone surrogates, any code point, long, id-like, injection-like. */
export const hostileText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '../../etc/passwd',
    "'; drop table tasks; --",
    '%00',
    '{{7*7}}',
    '0190a000-0000-7000-8000-000000000000',
    'not-a-uuid',
    '',
  ),
  fc.string({ minLength: 300, maxLength: 3_000 }),
);
export const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53, 0.5),
);
export const scalar = fc.oneof(
  { weight: 6, arbitrary: hostileText },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: coercionTrap },
);
/** Values nested from 1 to `maxDepth` levels of alternating objects and arrays. */
const nestedTo = (maxDepth: number) =>
  fc.tuple(fc.integer({ min: 1, max: maxDepth }), scalar).map(([depth, leaf]) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { n: value };
    return value;
  });
const valueNestedTo = (maxDepth: number) =>
  fc.oneof(
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(scalar, { maxLength: 8 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor', 'toString')), scalar, {
        maxKeys: 5,
      }),
    },
    { weight: 1, arbitrary: nestedTo(maxDepth) },
  );
/** Any value, nested from shallow to well past the door's 64 levels. */
export const hostileValue = valueNestedTo(90);
/** Any value the door lets through to the method (well within its 64 levels), for fuzzing params. */
export const hostileParamValue = valueNestedTo(40);

/**
 * Params for a method: the keys it reads (and a stranger now and then), each hostile, now and then
 * a very long string, and own `__proto__`/`constructor` keys (JSON.parse-built, then spread: spread
 * defines own properties, and JSON.stringify sends them).
 */
export const hostileParamsFor = (keys: readonly string[], value: fc.Arbitrary<unknown> = hostileParamValue) =>
  fc
    .tuple(
      fc.dictionary(
        fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: hostileText }),
        fc.oneof({ weight: 20, arbitrary: value }, { weight: 1, arbitrary: longText }),
        { maxKeys: keys.length + 1 },
      ),
      fc.option(fc.constantFrom('{"__proto__":{"name":"x"}}', '{"constructor":{"name":"x"}}', '{"toString":false}'), {
        nil: undefined,
      }),
    )
    .map(([fields, extra]) => ({
      ...(extra === undefined ? {} : (JSON.parse(extra) as Record<string, unknown>)),
      ...fields,
    }));

/** What every answer must be: no 5xx, no internal error in any form; a JSON-RPC answer when the app answered. */
export function assertNoServerFault(res: Pick<Response, 'status' | 'text' | 'body'>, label: string): void {
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.text, label).not.toContain('internal_error');
  // 202: a notification. 413: the body limit's fixed answer. 431: Node's own answer to headers over
  // its 16 KiB limit (an Mcp-Name mirroring a very long name), before the app sees the request.
  if (res.status === 202 || res.status === 413 || res.status === 431) return;
  const body = res.body as { error?: { code: number }; result?: { isError?: boolean; content?: unknown } };
  expect(body.error !== undefined || body.result !== undefined, label).toBe(true);
  if (body.error) expect(body.error.code, label).not.toBe(-32603);
}
