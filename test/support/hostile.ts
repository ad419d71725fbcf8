import fc from 'fast-check';
import { expect } from 'vitest';
import type { Response } from 'supertest';

/**
 * What the fuzz suites throw at the doors (fast-check arbitraries), and what every answer must be.
 * KADU_FUZZ_SCALE=10 runs ten times as many cases (exploration); the suites keep the default.
 */
export const FUZZ_SCALE = Number(process.env.KADU_FUZZ_SCALE ?? 1);

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
export const scalar = fc.oneof(hostileText, hostileNumber, fc.boolean(), fc.constant(null));
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
    { weight: 1, arbitrary: fc.dictionary(hostileText, scalar, { maxKeys: 5 }) },
    { weight: 1, arbitrary: nestedTo(maxDepth) },
  );
/** Any value, nested from shallow to well past the door's 64 levels. */
export const hostileValue = valueNestedTo(90);
/** Any value the door lets through to the method (well within its 64 levels), for fuzzing params. */
export const hostileParamValue = valueNestedTo(40);

/** What every answer must be: no 5xx, no internal error in any form. */
export function assertNoServerFault(res: Pick<Response, 'status' | 'text' | 'body'>, label: string): void {
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.text, label).not.toContain('internal_error');
  if (res.status === 202) return;
  const body = res.body as { error?: { code: number }; result?: { isError?: boolean; content?: unknown } };
  expect(body.error !== undefined || body.result !== undefined, label).toBe(true);
  if (body.error) expect(body.error.code, label).not.toBe(-32603);
}
