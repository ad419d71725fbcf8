import type { Rejection } from './rejection.js';

/**
 * Reading the values a client sends (issue 34). Params, headers' body twins and form fields arrive
 * as parsed JSON, so any of them may be an object whose `toString`/`valueOf` are not functions
 * (`{"toString":false}`): `String(x)`, `${x}`, `'' + x`, a property key or a RegExp test on it
 * throws a TypeError, which would answer -32603 where a wrong string answers -32602. Every place
 * that needs a client value as a string reads it here first (the lint rule
 * eslint-rules/no-unknown-coercion.mjs refuses the coercions elsewhere), and every message or log
 * line that shows one renders it with `describeValue`, which never calls the value's own methods.
 */

/** A refusal thrown from the pure core: the endpoint answers it as its rung says (errors.ts re-exports it). */
export class McpRejectionError extends Error {
  constructor(readonly rejection: Rejection) {
    super(rejection.message);
    this.name = 'McpRejectionError';
  }
}

/** `source[key]` when `source` is an object that has `key` as its own property and it is a string. */
export function stringField(source: unknown, key: string): string | undefined {
  if (typeof source !== 'object' || source === null || !Object.hasOwn(source, key)) return undefined;
  const value: unknown = (source as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The string a client sent under `key`, or the refusal a wrong string gets: `refuse` is given the
 * value as `describeValue` shows it, so one message serves both ("Unknown tool: …").
 */
export function stringParam(source: unknown, key: string, refuse: (shown: string) => Rejection): string {
  const value = stringField(source, key);
  if (value !== undefined) return value;
  const given = typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[key] : undefined;
  throw new McpRejectionError(refuse(describeValue(given)));
}

/**
 * The value with every object or array that cannot be turned into a primitive (its own `toString`
 * and `valueOf` not functions, or an element that cannot) replaced by NaN, which no declared type
 * accepts: what a converting pipe may then run on (dispatch/method-invoker.ts).
 */
export function withConvertibleValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (!convertible(value)) return Number.NaN;
  if (Array.isArray(value)) return value.map(withConvertibleValues);
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: withConvertibleValues(entry),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function convertible(value: object): boolean {
  try {
    // eslint-disable-next-line kadu/no-unknown-coercion -- the probe itself, in a try: parsed JSON holds no functions, so this runs no client code
    String(value as unknown);
    return true;
  } catch {
    return false;
  }
}

const DEFAULT_MAX = 200;

/**
 * Any value as text for a message or a log line, never throwing: strings as they are, other
 * primitives by their own spelling, an Error by its message, anything else as (cut) JSON. Nothing of
 * the value's own (`toString`, `valueOf`, `Symbol.toPrimitive`, getters of an Error) is trusted to work.
 */
export function describeValue(value: unknown, max = DEFAULT_MAX): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return `${value}`;
    case 'symbol':
      return value.description === undefined ? 'Symbol()' : `Symbol(${value.description})`;
    case 'function':
      return '[function]';
  }
  if (value === null) return 'null';
  try {
    if (value instanceof Error) {
      const message: unknown = value.message;
      return typeof message === 'string' ? message : 'Error';
    }
  } catch {
    return 'Error';
  }
  return cut(jsonText(value as object), max);
}

/** An error's stack when it has one, else what `describeValue` says of it (for the log of a failure). */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.stack === 'string') return error.stack;
  } catch {
    // A getter that throws: fall back to the plain description.
  }
  return describeValue(error);
}

function jsonText(value: object): string {
  try {
    const text: unknown = JSON.stringify(value);
    if (typeof text === 'string') return text;
  } catch {
    // Cycles, BigInts, a throwing getter or toJSON: the type tag below still says what it was.
  }
  return Array.isArray(value) ? '[array]' : '[object]';
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
