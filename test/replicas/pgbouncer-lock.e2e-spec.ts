import pg from 'pg';
import { startPgbouncer, type RunningPgbouncer } from '../../scripts/pgbouncer.mjs';
import { PG_DIRECT_URL, pgbouncer, postgres, redis, requires } from '../support/infrastructure.js';
import { RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

/**
 * Issue 33: two replicas share PostgreSQL through one PgBouncer in transaction pooling
 * (docs/operators/topologies.md). A lock held on the tasks table (a long migration, a stuck
 * transaction) makes every replica's statement wait; the statement timeout each sets inside its
 * transaction still cancels it server-side, so each answers 503 + Retry-After within the bound,
 * nothing of theirs is left waiting, and both serve again once the lock goes.
 */
const gate = requires(await postgres(PG_DIRECT_URL), await redis(), pgbouncer());
// As the partition tests: wide enough for a loaded machine to connect at start within it.
const BOUND_MS = 2000;
let s3: S3TestServer;
let bouncer: RunningPgbouncer;
let set: ReplicaSet;
let client: RemoteClient;

gate.describe('replicas behind PgBouncer: a held lock', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    // Four server connections for the replicas' twenty: their transactions share them.
    bouncer = await startPgbouncer(PG_DIRECT_URL, { mode: 'transaction', poolSize: 4 });
    set = await ReplicaSet.start({
      count: 2,
      s3,
      databaseUrl: bouncer.url,
      env: { KADU_DEPENDENCY_TIMEOUT_MS: String(BOUND_MS) },
    });
    client = new RemoteClient(set.url, await set.token(), await set.token({ audience: 'api' }));
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await bouncer?.stop();
    await s3?.close();
  });

  it('every replica answers 503 within the bound while the lock is held, and 200 once it is gone', async () => {
    expect((await client.rest('post', '/api/v1/tasks', { name: 'locked', kind: 'echo', cost_cap: 1 })).status).toBe(
      201,
    );
    const holder = new pg.Client({ connectionString: PG_DIRECT_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table ${set.schema}.tasks in access exclusive mode`);
      // Both replicas at once, twice each: four statements queue behind the lock on the pooled connections.
      const stuck = await Promise.all(
        [...set.replicas, ...set.replicas].map((r) => client.at(r.url).rest('get', '/api/v1/tasks')),
      );
      for (const answer of stuck) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
        expect(answer.body.errors[0].code).toBe('database_unavailable');
        expect(answer.ms).toBeLessThan(BOUND_MS + 1000);
      }
      // The server ended every waiting statement itself: nothing waits for the lock any more.
      const waiting = await holder.query(
        `select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
          where not l.granted and c.relname = 'tasks' and c.relnamespace = $1::regnamespace`,
        [set.schema],
      );
      expect(waiting.rows[0].n).toBe(0);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
    for (const r of set.replicas) expect((await client.at(r.url).rest('get', '/api/v1/tasks')).status).toBe(200);
  });
});
