import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, it } from 'vitest';
import { noUnknownCoercion } from './no-unknown-coercion.mjs';

// The rule of issue 34, run by ESLint's RuleTester over code type-checked in fixtures/ (the
// rule needs the checker to know which operands are `unknown`/`any`).
RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
const tester = new RuleTester({
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { project: './tsconfig.json', tsconfigRootDir: fixtures },
  },
});
const filename = `${fixtures}file.ts`;

tester.run('no-unknown-coercion', noUnknownCoercion, {
  valid: [
    // Typed values are what they say: a string, a number, a union of known types.
    { filename, code: 'const n = 3; const s = String(n) + `${n}` + "" + n;' },
    { filename, code: 'declare const v: string | number; export const s = `${v}`;' },
    // A checked unknown is narrowed before the coercion.
    { filename, code: 'declare const v: unknown; export const s = typeof v === "string" ? `${v}` : "";' },
    // Tagged templates hand the values to the tag, which coerces nothing on its own.
    {
      filename,
      code: 'declare const v: unknown; declare function tag(s: TemplateStringsArray, ...v: unknown[]): string; export const s = tag`${v}`;',
    },
    // A typed key, a literal key, a method called test on something that is not a RegExp.
    {
      filename,
      code: 'declare const k: string; const t: Record<string, number> = {}; export const n = t[k] ?? t["x"];',
    },
    { filename, code: 'declare const v: unknown; const o = { test: (x: unknown) => x }; export const r = o.test(v);' },
    // Asserting a known type to a string type (a literal union, a branded string) is the checker's business.
    { filename, code: 'declare const v: "a" | "b"; export const s = v as string;' },
    // Adding two unknowns is not a string coercion the rule can see; adding numbers is arithmetic.
    { filename, code: 'declare const n: number; export const s = n + 1;' },
  ],
  invalid: [
    { filename, code: 'declare const v: unknown; export const s = String(v);', errors: [{ messageId: 'coercion' }] },
    { filename, code: 'declare const v: any; export const s = String(v);', errors: [{ messageId: 'coercion' }] },
    { filename, code: 'declare const v: unknown; export const s = `name: ${v}`;', errors: [{ messageId: 'coercion' }] },
    { filename, code: "declare const v: unknown; export const s = '' + v;", errors: [{ messageId: 'coercion' }] },
    { filename, code: "declare const v: unknown; export const s = v + 'x';", errors: [{ messageId: 'coercion' }] },
    { filename, code: 'declare const v: unknown; export const s = `a` + v;', errors: [{ messageId: 'coercion' }] },
    {
      filename,
      code: "declare const v: unknown; let s = 'x'; s += v; export { s };",
      errors: [{ messageId: 'coercion' }],
    },
    // A property of a params record, the usual shape of a request value.
    {
      filename,
      code: 'declare const params: Record<string, unknown>; export const s = `Unknown tool: ${params.name}`;',
      errors: [{ messageId: 'coercion' }],
    },
    // A caught error is unknown too: a thrown object may have a non-callable toString.
    {
      filename,
      code: 'try { JSON.parse("{") } catch (error) { console.log(String(error)); }',
      errors: [{ messageId: 'coercion' }],
    },
    // Asserting that an unknown is a string hides it from the checks above: `as string` is refused too.
    {
      filename,
      code: 'declare const params: Record<string, unknown>; export const s = `Unknown: ${params.name as string}`;',
      errors: [{ messageId: 'assertion' }],
    },
    { filename, code: 'declare const v: any; export const s = <string>v;', errors: [{ messageId: 'assertion' }] },
    // The other coercions of a value: to a number, into a URI, as a property key, by a RegExp.
    { filename, code: 'declare const v: unknown; export const n = Number(v);', errors: [{ messageId: 'coercion' }] },
    { filename, code: 'declare const v: any; export const n = parseInt(v, 10);', errors: [{ messageId: 'coercion' }] },
    {
      filename,
      code: 'declare const v: any; export const u = encodeURIComponent(v);',
      errors: [{ messageId: 'coercion' }],
    },
    {
      filename,
      code: 'declare const v: any; const table: Record<string, number> = {}; export const n = table[v];',
      errors: [{ messageId: 'coercion' }],
    },
    { filename, code: 'declare const v: any; export const ok = /a/.test(v);', errors: [{ messageId: 'coercion' }] },
    // An unconstrained type parameter is unknown.
    { filename, code: 'export function f<T>(v: T) { return `${v}`; }', errors: [{ messageId: 'coercion' }] },
  ],
});
