type Pending = string | { value: unknown } | { leave: object };

/**
 * JSON with object keys sorted at every level: equal arguments give equal digests. Written with an
 * explicit stack rather than recursion, so no nesting depth can overflow the call stack; otherwise
 * it answers what `JSON.stringify` would (toJSON honoured, undefined/functions dropped from
 * objects and written `null` in arrays, a cycle is a TypeError).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const onPath = new Set<object>();
  const stack: Pending[] = [{ value }];
  while (stack.length) {
    const next = stack.pop()!;
    if (typeof next === 'string') {
      out.push(next);
      continue;
    }
    if ('leave' in next) {
      onPath.delete(next.leave);
      continue;
    }
    const v = jsonValue(next.value);
    if (v === null || typeof v !== 'object') {
      out.push(v === undefined ? 'null' : JSON.stringify(v));
      continue;
    }
    if (onPath.has(v)) throw new TypeError('canonicalJson: cyclic structure');
    onPath.add(v);
    stack.push({ leave: v });
    if (Array.isArray(v)) {
      out.push('[');
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push(',');
      }
      continue;
    }
    const object = v as Record<string, unknown>;
    const keys = Object.keys(object)
      .filter((k) => jsonValue(object[k]) !== undefined)
      .sort();
    out.push('{');
    stack.push('}');
    for (let i = keys.length - 1; i >= 0; i--) {
      stack.push({ value: object[keys[i]!] });
      stack.push(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`);
    }
  }
  return out.join('');
}

/** What JSON.stringify would serialize for a value: its toJSON, and nothing for functions and symbols. */
function jsonValue(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: () => unknown }).toJSON();
  }
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  return value;
}
