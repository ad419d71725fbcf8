/** JSON with object keys sorted at every level: equal arguments give equal digests. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sort(value)) ?? 'null';
}

function sort(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sort);
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .filter((k) => object[k] !== undefined)
        .map((k) => [k, sort(object[k])]),
    );
  }
  return value;
}
