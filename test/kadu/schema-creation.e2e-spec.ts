import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { MIGRATION_LOCK } from '../../src/db/migrations.js';
import { PostgresDatabase } from '../../src/db/postgres-database.js';
import { PG_DIRECT_URL, postgres, requires } from '../support/infrastructure.js';

/**
 * Replicas that start together on a new DATABASE_SCHEMA: each creates the schema if it is not
 * there, and none may fail because another created it a moment before (a replica of the
 * partition suite once stopped at start with 23505 on pg_namespace).
 */
const gate = requires(await postgres(PG_DIRECT_URL));
const REPLICAS = 8;

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_DIRECT_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

gate.describe('a new DATABASE_SCHEMA opened by several replicas at once', () => {
  it('replicas waiting while another creates the schema open it, not create it again', async () => {
    // The creator holds the creation lock while the others have begun their transactions and wait
    // for it, then creates the schema and commits: what each waiter sees next is what decides.
    const schema = `kadu_new_${randomBytes(5).toString('hex')}`;
    const creator = new pg.Client({ connectionString: PG_DIRECT_URL });
    await creator.connect();
    let opened: PromiseSettledResult<PostgresDatabase>[] = [];
    try {
      await creator.query('begin');
      await creator.query('select pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
      const waiting = Promise.allSettled(
        Array.from({ length: 3 }, () => PostgresDatabase.open(PG_DIRECT_URL, { schema, timeoutMs: 10_000 })),
      );
      await new Promise((r) => setTimeout(r, 500));
      await creator.query(`create schema ${schema}`);
      await creator.query('commit');
      opened = await waiting;
      expect(opened.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual([]);
    } finally {
      await creator.end();
      await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value.close() : undefined)));
      await dropSchema(schema);
    }
  });

  it('every replica opens the database, and the schema exists once', async () => {
    for (let round = 0; round < 5; round++) {
      const schema = `kadu_new_${randomBytes(5).toString('hex')}`;
      const opened = await Promise.allSettled(
        Array.from({ length: REPLICAS }, () => PostgresDatabase.open(PG_DIRECT_URL, { schema, timeoutMs: 5000 })),
      );
      try {
        expect(opened.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual([]);
        const [db] = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        expect(await db!.query('select count(*)::int as n from pg_namespace where nspname = $1', [schema])).toEqual([
          { n: 1 },
        ]);
      } finally {
        await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value.close() : undefined)));
        await dropSchema(schema);
      }
    }
  });
});
