import { v7 as uuidv7 } from 'uuid';
import { ApiError } from './api-error.js';

/** Opaque, time-sortable ids (UUIDv7): newest first is simply `order by id desc`. */
export function newId(): string {
  return uuidv7();
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}

/**
 * Ids are checked before any query: nothing with `/ ? # % ..` or control characters reaches SQL,
 * storage paths or URLs. A malformed id is simply not found (existence never leaks).
 */
export function assertId(value: unknown, what: string): string {
  if (!isId(value)) throw ApiError.notFound(what);
  return value;
}
