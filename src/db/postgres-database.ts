import pg from 'pg';
import { ApiError } from '../common/api-error.js';
import { asInputError } from './input-errors.js';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** A database that cannot be reached answers 503 with Retry-After, not 500: the client should come back. */
function unavailable(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const lost = (code && CONNECTION_CODES.has(code)) || /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message ?? '');
  return lost ? new ApiError(503, 'database_unavailable', 'Service unavailable', 'The database cannot be reached; retry shortly').withHeader('Retry-After', '5') : asInputError(error);
}
import type { Database, Queryable } from './database.js';

/** The distributed topology: a PostgreSQL server shared by every replica. */
export class PostgresDatabase implements Database {
  readonly driver = 'postgres' as const;

  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string, schema?: string): Promise<PostgresDatabase> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 5_000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    // An idle client that errors (server restart) must not crash the process.
    pool.on('error', () => undefined);
    const db = new PostgresDatabase(pool);
    if (schema) await pool.query(`create schema if not exists ${schema}`);
    return db;
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return (await this.pool.query(sql, params as unknown[])).rows as T[];
    } catch (error) {
      throw unavailable(error);
    }
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
    try {
      await client.query('begin');
      const result = await work({ query: async <R>(sql: string, params: readonly unknown[] = []) => (await client.query(sql, params as unknown[])).rows as R[] });
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw unavailable(error);
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.query('select 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
