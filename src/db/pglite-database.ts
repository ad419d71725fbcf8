import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';
import { asInputError } from './input-errors.js';

/** The embedded topology: PostgreSQL compiled to WASM, file-backed in the data folder. */
export class PgliteDatabase implements Database {
  readonly driver = 'pglite' as const;

  private constructor(private readonly db: PGlite) {}

  static async open(dir: string | undefined): Promise<PgliteDatabase> {
    if (dir) mkdirSync(dir, { recursive: true });
    const db = dir ? new PGlite(dir) : new PGlite();
    await db.waitReady;
    return new PgliteDatabase(db);
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return (await this.db.query<T>(sql, params as unknown[])).rows;
    } catch (error) {
      throw asInputError(error);
    }
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(async (tx: Transaction) =>
        work({
          query: async <R>(sql: string, params: readonly unknown[] = []) =>
            (await tx.query<R>(sql, params as unknown[])).rows,
        }),
      );
    } catch (error) {
      throw asInputError(error);
    }
  }

  async ping(): Promise<void> {
    await this.db.query('select 1');
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
