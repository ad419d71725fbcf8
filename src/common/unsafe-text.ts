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

/** The first unsafe string (a value or an object key) in a JSON-like value; iterative, any depth. */
export function findUnsafeText(value: unknown, root = ''): UnsafeText | undefined {
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
