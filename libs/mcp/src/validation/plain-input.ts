/**
 * The keys Nest's ValidationPipe deletes before class-transformer sees a value (stripProtoKeys,
 * @nestjs/common/utils/strip-proto-keys.util): an input holding one takes the pipe's own path.
 */
const STRIPPED_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** A JSON scalar: what class-transformer copies as it is when no decorator or option converts it. */
function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** An array of scalars, or of such arrays: class-transformer copies it item by item into a new array. */
function copiedList(value: unknown[]): unknown[] | undefined {
  const copy = new Array<unknown>(value.length);
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return undefined;
    const item = value[i];
    if (isScalar(item)) copy[i] = item;
    else if (Array.isArray(item)) {
      const inner = copiedList(item);
      if (!inner) return undefined;
      copy[i] = inner;
    } else return undefined;
  }
  return copy;
}

/**
 * The entries of a plain object whose values are scalars or arrays of them, copied as
 * class-transformer's plainToInstance would copy them into an undecorated class; `undefined` for
 * anything else (a nested object, a class instance, a stripped key), which the pipe's own path
 * takes. A tool's arguments are almost always this shape.
 */
export function plainEntries(value: unknown): [string, unknown][] | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(value)) {
    if (STRIPPED_KEYS.has(key)) return undefined;
    const field = (value as Record<string, unknown>)[key];
    if (isScalar(field)) entries.push([key, field]);
    else if (Array.isArray(field)) {
      const copy = copiedList(field);
      if (!copy) return undefined;
      entries.push([key, copy]);
    } else return undefined;
  }
  return entries;
}
