// ajv ships CommonJS; its named export is the class. A static import, so the production bundle
// holds it (with the ajv core libs/mcp already bundles) rather than requiring ~60 files at start-up.
import { Ajv, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { canonicalJson } from '@kobana/nest-mcp';

/**
 * What a tenant's JSON Schema may be (docs/operators/limits-and-security.md §Security; the byte size is checked by the DTO).
 * Measured (bench/RESULTS.md): ajv's code generation costs ~0.1 ms per subschema, so the node
 * limit bounds the compile; patterns × object keys bound `patternProperties`; RE2 program size
 * and weight bound each match.
 */
export const SCHEMA_LIMITS = {
  depth: 32,
  nodes: 300,
  patterns: 8,
  patternLength: 512,
  patternInstructions: 250,
  patternWeight: 20_000,
} as const;

/** Why a schema cannot be used, in words for the 422 detail. */
export class SchemaRefused extends Error {}

type Matcher = { test: (text: string) => boolean };

/**
 * Tenant regular expressions run on RE2 (re2js): matching is linear in the input, so no
 * `pattern` can stall the event loop. Patterns outside RE2's syntax (lookaround,
 * backreferences) fail to compile, and so do programs over the size limit (large counted
 * repetitions such as `.{5000}` make each step of a linear match expensive); the schema is then
 * refused when the task is saved. One engine per schema: a pattern is compiled once per schema,
 * and nothing compiled is shared with another schema.
 */
function re2Engine(): ((pattern: string) => Matcher) & { code: string } {
  const compiled = new Map<string, Matcher>();
  let weight = 0;
  const engine = (pattern: string): Matcher => {
    let matcher = compiled.get(pattern);
    if (!matcher) {
      const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
      const prog = re.re2().prog as { numInst(): number; inst: { runes?: ArrayLike<number> }[] };
      const size = prog.numInst();
      if (size > SCHEMA_LIMITS.patternInstructions) {
        throw new SchemaRefused(
          `the pattern "${pattern.slice(0, 100)}" is too complex (${size} RE2 instructions; limit ${SCHEMA_LIMITS.patternInstructions}): use smaller repetition counts`,
        );
      }
      // Instructions plus character-class ranges: what compiling and matching actually cost
      // (\p{L} alone is ~700 ranges; repeated 100 times it is the slow case).
      weight += prog.inst.reduce((sum, inst) => sum + 1 + (inst.runes?.length ?? 0), 0);
      if (weight > SCHEMA_LIMITS.patternWeight) {
        throw new SchemaRefused(
          `the patterns are too complex together (over ${SCHEMA_LIMITS.patternWeight} RE2 units): repeat large classes such as \\p{L} less`,
        );
      }
      matcher = { test: (text) => re.test(text) };
      compiled.set(pattern, matcher);
    }
    return matcher;
  };
  return Object.assign(engine, { code: 're2js' });
}

/**
 * `uniqueItems` in one pass (a canonical JSON key per item) instead of ajv's pairwise deep
 * comparison, which is quadratic for arrays of arrays or objects.
 */
const uniqueItems: SchemaValidateFunction = (schema: boolean, data: unknown[]): boolean => {
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = itemKey(data[i]);
    const first = seen.get(key);
    if (first !== undefined) {
      uniqueItems.errors = [
        {
          keyword: 'uniqueItems',
          message: `must NOT have duplicate items (items ## ${first} and ${i} are identical)`,
          params: { i: first, j: i },
        },
      ];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

/** Equal items, equal keys: native JSON unless an object is inside (then key order must not matter). */
function itemKey(item: unknown): string {
  if (item === null || typeof item !== 'object') return JSON.stringify(item) ?? 'null';
  const text = JSON.stringify(item);
  return text.includes('{') ? canonicalJson(item) : text;
}

/**
 * Compiles one tenant schema in its own ajv instance: no registry shared with any other schema
 * or organisation (an `$id` names nothing outside this document), no loader (no remote
 * references), and the limits checked before ajv sees the schema.
 */
export function compileTenantSchema(schema: Record<string, unknown>): ValidateFunction {
  const re2 = re2Engine();
  checkShape(schema, re2);
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false, code: { regExp: re2, optimize: false } });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
  try {
    return ajv.compile(schema);
  } catch (error) {
    if (error instanceof SchemaRefused) throw error;
    throw new SchemaRefused((error as Error).message);
  }
}

// Keywords whose values are data, not schemas: a `$ref` or `pattern` inside them means nothing.
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** Depth, size, references and patterns, in one iterative walk (no recursion, any input). */
function checkShape(schema: Record<string, unknown>, re2: (pattern: string) => Matcher): void {
  const stack: [unknown, number, boolean][] = [[schema, 1, false]];
  let nodes = 0;
  let patterns = 0;
  const pattern = (text: unknown, where: string): void => {
    if (++patterns > SCHEMA_LIMITS.patterns)
      throw new SchemaRefused(`more than ${SCHEMA_LIMITS.patterns} regular expressions`);
    if (typeof text !== 'string') return;
    if (text.length > SCHEMA_LIMITS.patternLength)
      throw new SchemaRefused(`${where} is longer than ${SCHEMA_LIMITS.patternLength} characters`);
    // Every pattern, even one ajv would never run (e.g. under an always-valid schema), must be RE2.
    try {
      re2(text);
    } catch (error) {
      if (error instanceof SchemaRefused) throw error;
      throw new SchemaRefused(
        `${where} "${text.slice(0, 100)}" is not supported (RE2 syntax: no lookaround or backreferences): ${(error as Error).message}`,
      );
    }
  };
  while (stack.length) {
    const [node, depth, data] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (++nodes > SCHEMA_LIMITS.nodes) throw new SchemaRefused(`more than ${SCHEMA_LIMITS.nodes} objects and arrays`);
    if (depth > SCHEMA_LIMITS.depth) throw new SchemaRefused(`nested deeper than ${SCHEMA_LIMITS.depth} levels`);
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    for (const [key, value] of entries) {
      if (!data && !Array.isArray(node)) {
        if (
          (key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') &&
          typeof value === 'string' &&
          !value.startsWith('#')
        ) {
          throw new SchemaRefused(
            `${key} "${value.slice(0, 100)}" points outside this schema; only references inside it ("#…") are allowed`,
          );
        }
        if (key === '$async' && value !== false) throw new SchemaRefused('$async schemas are not supported');
        if (key === 'pattern' && typeof value === 'string') pattern(value, 'a pattern');
        if (key === 'patternProperties' && value !== null && typeof value === 'object')
          for (const p of Object.keys(value)) pattern(p, 'a patternProperties key');
      }
      stack.push([value, depth + 1, data || (!Array.isArray(node) && DATA_KEYWORDS.has(key))]);
    }
  }
}
