import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from '@kobana/nest-mcp';
import { ApiError } from './api-error.js';
import type { ListEnvelope } from './serialize.js';
import { Omittable } from './validation.js';

export class PageQueryDto {
  @Omittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  @JSONSchema({ description: 'Page size, 1–100 (default 20)' })
  limit?: number;

  @Omittable()
  @IsString()
  @MaxLength(512)
  @JSONSchema({ description: 'meta.next_cursor of the previous page' })
  cursor?: string;
}

/**
 * Keyset pagination on the (time-sortable) id, newest first. The cursor carries the last id seen
 * and a digest of the filters, MAC-ed: it cannot be forged, and reusing it with other filters is
 * refused (400 invalid_cursor) instead of silently returning another list.
 */
export class Paginator {
  constructor(private readonly key: Buffer) {}

  /** The id to continue after, or undefined for the first page. */
  after(cursor: string | undefined, filters: Record<string, unknown>): string | undefined {
    if (cursor === undefined) return undefined;
    const [body, tag] = cursor.split('.');
    if (!body || !tag) throw invalidCursor();
    const expected = this.mac(body);
    const given = Buffer.from(tag, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
    const [digest, lastId] = Buffer.from(body, 'base64url').toString('utf8').split(':');
    if (digest !== filterDigest(filters) || !lastId)
      throw invalidCursor('the cursor belongs to a listing with other filters');
    return lastId;
  }

  page<T extends { id: string }>(rows: T[], limit: number, filters: Record<string, unknown>): ListEnvelope<T> {
    const more = rows.length > limit;
    const data = more ? rows.slice(0, limit) : rows;
    const next = more ? this.seal(filterDigest(filters), data[data.length - 1]!.id) : null;
    return { data, meta: { next_cursor: next, limit } };
  }

  private seal(digest: string, lastId: string): string {
    const body = Buffer.from(`${digest}:${lastId}`, 'utf8').toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update('kadu-cursor\0').update(body).digest().subarray(0, 18);
  }
}

function filterDigest(filters: Record<string, unknown>): string {
  const canonical = Object.keys(filters)
    .sort()
    .map((k) => `${k}=${filters[k] ?? ''}`)
    .join('&');
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

function invalidCursor(detail = 'the cursor is malformed or was altered'): ApiError {
  return new ApiError(400, 'invalid_cursor', 'Invalid cursor', detail, 'cursor');
}

export function limitOf(query: { limit?: number }): number {
  return query.limit ?? 20;
}
