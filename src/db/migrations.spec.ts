import type { Database } from './database.js';
import { LATEST_MIGRATION, migrate } from './migrations.js';
import { PgliteDatabase } from './pglite-database.js';

/** Counts the transactions `migrate` opens: the locked path, one per migration. */
function counted(db: Database): Database & { transactions: number } {
  const spy = Object.assign(Object.create(db) as Database, { transactions: 0 });
  spy.transaction = (work, options) => {
    spy.transactions++;
    return db.transaction(work, options);
  };
  return spy;
}

/** Start-up's migration pass (issue 32: a migrated database costs two reads, not a transaction per migration). */
describe('migrate', () => {
  let db: PgliteDatabase;
  beforeEach(async () => {
    db = await PgliteDatabase.open(undefined);
  });
  afterEach(() => db.close());

  it('applies every migration to a new database, then finds nothing to do without opening a transaction', async () => {
    const first = counted(db);
    expect(await migrate(first)).toBe(LATEST_MIGRATION);
    expect(first.transactions).toBe(LATEST_MIGRATION + 1);
    const again = counted(db);
    expect(await migrate(again)).toBe(0);
    expect(again.transactions).toBe(0);
  }, 60_000);

  it('applies what a database made by an older version lacks, through the locked path', async () => {
    await migrate(db);
    // The state before migration 4: its columns absent, its row not recorded.
    await db.query('alter table executions drop column run_token, drop column resumes, drop column run_start_seq');
    await db.query('delete from schema_migrations where id = 4');
    const older = counted(db);
    expect(await migrate(older)).toBe(1);
    expect(older.transactions).toBe(LATEST_MIGRATION + 1);
    expect(await db.query('select run_token, resumes, run_start_seq from executions')).toEqual([]);
    expect((await db.query<{ id: number }>('select id from schema_migrations order by id')).map((r) => r.id)).toEqual(
      Array.from({ length: LATEST_MIGRATION }, (_, i) => i + 1),
    );
  }, 60_000);
});
