/**
 * Text PostgreSQL cannot store, or that JSON cannot carry faithfully: NUL (0x00 is refused in
 * `text` and `jsonb`) and lone UTF-16 surrogates (not Unicode; they would be stored as U+FFFD or
 * refused). Found before any query, so bad input is a 422 naming the field, never a 500.
 */
export interface UnsafeText {
  /** Where it was found, as a dotted parameter path (`input.notes.2`), or '' for the value itself. */
  readonly path: string;
  readonly problem: 'a NUL character' | 'an unpaired UTF-16 surrogate';
}

// Lone high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemOf(text: string): UnsafeText['problem'] | undefined {
  if (text.includes('\u0000')) return 'a NUL character';
  return LONE_SURROGATE.test(text) ? 'an unpaired UTF-16 surrogate' : undefined;
}

// In JSON.stringify's output NUL is written `\u0000` and a lone surrogate `\udXXX` (paired ones stay
// raw); an even run of backslashes before it means the escape was itself text.
const ESCAPED_UNSAFE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

// Any NUL or surrogate at all, paired or not: a string without one holds nothing unsafe.
export const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/**
 * True when `value` surely holds no unsafe text: a scalar, or a plain object (Object.prototype or
 * none) whose keys and values are scalars free of NUL and surrogates — a tool's usual arguments,
 * read in one loop without serializing them. False means "not known", never "unsafe": the value
 * then takes the general path below, whose answer is the same for every value this one clears
 * (unsafe-text.spec.ts draws values and compares both).
 */
function clearlySafe(value: unknown): boolean {
  if (typeof value === 'string') return !SUSPECT.test(value);
  if (value === null || typeof value !== 'object') return typeof value !== 'bigint' && typeof value !== 'symbol';
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) {
    if (SUSPECT.test(key) || !isSafeScalar((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** A JSON scalar (or undefined) that holds no NUL or surrogate: what a flat value's fields must be to be cleared. */
export function isSafeScalar(field: unknown): boolean {
  if (typeof field === 'string') return !SUSPECT.test(field);
  return field === null || field === undefined || typeof field === 'number' || typeof field === 'boolean';
}

/** The first unsafe string (a value or an object key) in a JSON-like value; iterative, any depth. */
export function findUnsafeText(value: unknown, root = ''): UnsafeText | undefined {
  if (clearlySafe(value)) return undefined;
  return findUnsafeTextWithoutShortcut(value, root);
}

/** findUnsafeText without its flat-value shortcut (kept for the equivalence test). */
export function findUnsafeTextWithoutShortcut(value: unknown, root = ''): UnsafeText | undefined {
  // Fast path: one native serialization and one linear scan; the walk below only names the place.
  try {
    const text = JSON.stringify(value);
    if (text === undefined || !ESCAPED_UNSAFE.test(text)) return undefined;
  } catch {
    // Too deep for the native serializer, or not JSON at all: walk it.
  }
  return walk(value, root);
}

function walk(value: unknown, root: string): UnsafeText | undefined {
  const stack: [unknown, string][] = [[value, root]];
  const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      const problem = problemOf(node);
      if (problem) return { path, problem };
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], join(path, String(i))]);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      const problem = problemOf(key);
      if (problem) return { path: join(path, key.replace(/[\u0000\uD800-\uDFFF]/g, '?')), problem };
      stack.push([child, join(path, key)]);
    }
  }
  return undefined;
}
