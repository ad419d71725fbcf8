import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DATABASE, type Database } from '../db/database.js';
import { ApiError } from './api-error.js';
import { canonicalJson } from '@kobana/nest-mcp';

const TTL_HOURS = 24;

/**
 * Idempotency keys (docs/kadu.md): scoped to (org, key), kept 24 h. A retry with the same key and the
 * same parameters replays the first response; other parameters → 422; a retry while the first
 * is still running → 409. A failure stores nothing, so the write can be retried.
 */
@Injectable()
export class IdempotencyService {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  async run<T>(
    orgId: string,
    key: string | undefined,
    operation: string,
    params: unknown,
    status: number,
    work: () => Promise<T>,
  ): Promise<T> {
    if (key === undefined || key === '') return work();
    if (key.length > 255)
      throw new ApiError(
        422,
        'validation_failed',
        'Validation failed',
        'The idempotency key is longer than 255 characters',
        'idempotency_key',
      );
    const hash = createHash('sha256').update(operation).update('\0').update(canonicalJson(params)).digest('hex');
    await this.db.query(
      `delete from idempotency_keys where org_id = $1 and key = $2 and created_at < now() - interval '${TTL_HOURS} hours'`,
      [orgId, key],
    );
    const claimed = await this.db.query(
      `insert into idempotency_keys (org_id, key, request_hash, state) values ($1, $2, $3, 'in_flight')
       on conflict (org_id, key) do nothing returning key`,
      [orgId, key, hash],
    );
    if (claimed.length === 0) return this.replay<T>(orgId, key, hash);
    try {
      const body = await work();
      await this.db.query(
        `update idempotency_keys set state = 'done', response_status = $3, response_body = $4::jsonb where org_id = $1 and key = $2`,
        [orgId, key, status, JSON.stringify(body)],
      );
      return body;
    } catch (error) {
      await this.db.query('delete from idempotency_keys where org_id = $1 and key = $2', [orgId, key]);
      throw error;
    }
  }

  private async replay<T>(orgId: string, key: string, hash: string): Promise<T> {
    const [row] = await this.db.query<{ request_hash: string; state: string; response_body: T }>(
      'select request_hash, state, response_body from idempotency_keys where org_id = $1 and key = $2',
      [orgId, key],
    );
    if (!row || row.state !== 'done') {
      throw new ApiError(
        409,
        'idempotency_key_in_use',
        'Idempotency key in use',
        'The first request with this key is still running; retry shortly',
      );
    }
    if (row.request_hash !== hash) {
      throw new ApiError(
        422,
        'idempotency_key_mismatch',
        'Idempotency key mismatch',
        'This key was used with other parameters',
        'idempotency_key',
      );
    }
    return row.response_body;
  }
}
