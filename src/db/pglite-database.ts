import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite, type PGliteOptions, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';
import { asInputError } from './input-errors.js';
import { prepareDataDir } from './pglite-data-dir.js';
import { pgliteWasmFlags } from './pglite-wasm-flags.js';

/**
 * PostgreSQL's settings for one embedded user. initdb writes shared_buffers = 128MB, and PGlite's
 * WASM PostgreSQL touches all of it at start: 128 MB of resident memory for a cache the embedded
 * topology's data (a team's tasks, executions, members) never fills. 16 MB is twice PostgreSQL's
 * own minimum default; measured in bench/RESULTS.md ("Start-up": −125 MB RSS idle, same throughput).
 */
export const PGLITE_OPTIONS: PGliteOptions = {
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
};

/** The embedded topology: PostgreSQL compiled to WASM, file-backed in the data folder. */
export class PgliteDatabase implements Database {
  readonly driver = 'pglite' as const;

  private constructor(private readonly db: PGlite) {}

  static async open(dir: string | undefined): Promise<PgliteDatabase> {
    if (dir) {
      mkdirSync(dirname(dir), { recursive: true });
      // A new folder is made outside this process (pglite-data-dir.ts): PGlite here only opens it.
      await prepareDataDir(dir);
    }
    // Read when PGlite instantiates its module, below: this process's every PGlite gets them.
    for (const flag of pgliteWasmFlags()) setFlagsFromString(flag);
    const db = dir ? new PGlite(dir, PGLITE_OPTIONS) : new PGlite(PGLITE_OPTIONS);
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
