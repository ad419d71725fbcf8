import pg from 'pg';
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
    return (await this.pool.query(sql, params as unknown[])).rows as T[];
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const result = await work({ query: async <R>(sql: string, params: readonly unknown[] = []) => (await client.query(sql, params as unknown[])).rows as R[] });
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('select 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
