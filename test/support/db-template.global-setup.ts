import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import type { Database, Queryable } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrations.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An embedded database, created and migrated once per run, that startKadu copies into each fresh data folder. */
    kaduDbTemplate: string | undefined;
  }
}

/**
 * Creating an embedded database (PGlite's initdb in WASM, then the migrations) costs seconds of
 * CPU, and almost every test file starts a fresh Kadu app: the run does it once here, and each
 * fresh app starts from a copy (test/support/kadu-app.ts) of what the app's own start would have
 * made (src/db/pglite-database.ts opens the folder, src/db/migrations.ts migrates it). The
 * distributed pass runs on PostgreSQL and needs none.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (process.env.KADU_TEST_TOPOLOGY === 'distributed') {
    project.provide('kaduDbTemplate', undefined);
    return undefined;
  }
  const root = mkdtempSync(join(tmpdir(), 'kadu-db-template-'));
  const dir = join(root, 'db');
  const pg = new PGlite(dir);
  await pg.waitReady;
  const on = (q: Pick<PGlite, 'query'>): Queryable => ({
    query: async <T>(sql: string, params: readonly unknown[] = []) => (await q.query<T>(sql, [...params])).rows,
  });
  const db: Database = {
    driver: 'pglite',
    ...on(pg),
    transaction: (work) => pg.transaction((tx) => work(on(tx))),
    ping: async () => undefined,
    close: () => pg.close(),
  };
  await migrate(db);
  await pg.close();
  project.provide('kaduDbTemplate', dir);
  return () => rmSync(root, { recursive: true, force: true });
}
