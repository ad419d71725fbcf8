import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPgbouncer, type RunningPgbouncer } from '../../scripts/pgbouncer.mjs';
import { databaseProblem } from '../../src/config/startup-check.js';
import { ensureBuilt, runApp } from '../ops/built-app.js';
import { freePort } from '../../scripts/free-port.mjs';
import { PG_DIRECT_URL, pgbouncer, postgres, requires } from '../support/infrastructure.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * PostgreSQL behind PgBouncer in transaction pooling (docs/operators/topologies.md): each
 * transaction may run on another server connection, so nothing Kadu needs may live in the
 * session. DATABASE_SCHEMA still decides where rows land, the statement timeout still cancels a
 * statement stuck behind a lock (503 within the bound), and start-up refuses, in one line, what
 * the pooler would otherwise break without a word.
 */
const gate = requires(await postgres(PG_DIRECT_URL), pgbouncer());
const BOUND_MS = 1000;

async function direct<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_DIRECT_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

gate.describe('Kadu behind PgBouncer (pool_mode = transaction)', () => {
  let bouncer: RunningPgbouncer;
  let kadu: KaduTestApp;
  let admin: KaduClient;
  const schema = `kadu_pgb_${randomBytes(5).toString('hex')}`;

  beforeAll(async () => {
    // Two server connections for the app's ten: its transactions share them, as in production.
    bouncer = await startPgbouncer(PG_DIRECT_URL, { mode: 'transaction', poolSize: 2 });
    kadu = await startKadu({
      DATABASE_URL: bouncer.url,
      DATABASE_SCHEMA: schema,
      KADU_DEPENDENCY_TIMEOUT_MS: String(BOUND_MS),
    });
    admin = new KaduClient(kadu, { role: 'admin' });
  });
  afterAll(async () => {
    await kadu?.close();
    await direct((c) => c.query(`drop schema if exists ${schema} cascade`));
    await bouncer?.stop();
  });

  it('writes into DATABASE_SCHEMA, never into public', async () => {
    const created = await admin.rest('post', '/api/v1/tasks', { name: 'Pooled', kind: 'echo', cost_cap: 3 });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    // Many transactions later, on whichever server connection each got, every read still finds it.
    for (let i = 0; i < 10; i++) expect((await admin.rest('get', `/api/v1/tasks/${id}`)).body.data.name).toBe('Pooled');
    await direct(async (c) => {
      const rows = await c.query(`select name from ${schema}.tasks where id = $1`, [id]);
      expect(rows.rows).toEqual([{ name: 'Pooled' }]);
      const inPublic = await c.query(`select to_regclass('public.tasks') is not null as exists`);
      if (inPublic.rows[0].exists)
        expect((await c.query('select count(*)::int as n from public.tasks where id = $1', [id])).rows[0].n).toBe(0);
    });
  });

  it('a statement stuck behind a held lock is cancelled by the server: 503 within the bound, then served again', async () => {
    const holder = new pg.Client({ connectionString: PG_DIRECT_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table ${schema}.tasks in access exclusive mode`);
      const started = Date.now();
      const stuck = await admin.rest('get', '/api/v1/tasks');
      const tookMs = Date.now() - started;
      expect(stuck.status).toBe(503);
      expect(stuck.headers['retry-after']).toBe('5');
      expect(stuck.body.errors[0].code).toBe('database_unavailable');
      expect(tookMs).toBeLessThan(BOUND_MS + 1000);
      // The server ended the waiting statement itself (statement_timeout set inside the transaction):
      // nothing of the app's still waits for the lock, although PgBouncer sits in between.
      const waiting = await holder.query(
        `select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
          where not l.granted and c.relname = 'tasks' and c.relnamespace = $1::regnamespace`,
        [schema],
      );
      expect(waiting.rows[0].n).toBe(0);
      const cancelled = await holder.query(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
      );
      expect(cancelled.rows[0].n).toBe(0);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
    expect((await admin.rest('get', '/api/v1/tasks')).status).toBe(200);
  });
});

gate.describe('start-up refuses what the pooler would break, in one line', () => {
  const dirs: string[] = [];
  let transaction: RunningPgbouncer;
  let lenient: RunningPgbouncer;
  let statement: RunningPgbouncer;
  beforeAll(async () => {
    ensureBuilt();
    [transaction, lenient, statement] = await Promise.all([
      startPgbouncer(PG_DIRECT_URL, { mode: 'transaction', poolSize: 2 }),
      startPgbouncer(PG_DIRECT_URL, { mode: 'transaction', poolSize: 2, ignoreStartupParameters: ['options'] }),
      startPgbouncer(PG_DIRECT_URL, { mode: 'statement', poolSize: 2 }),
    ]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([transaction?.stop(), lenient?.stop(), statement?.stop()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function refused(databaseUrl: string): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'kadu-pgb-'));
    dirs.push(dir);
    const app = runApp({ PORT: '0', DATA_DIR: dir, DATABASE_URL: databaseUrl, DEV_SIGNING_KEY_FILE: '/k.json' });
    const exit = await app.exited;
    expect(exit.code, app.stdout() + app.stderr()).toBe(1);
    expect(app.stdout()).not.toContain('Kadu listening');
    return app.stderr().trim().split('\n');
  }

  const SEARCH_PATH = `options=${encodeURIComponent('-c search_path=elsewhere')}`;

  it('a session parameter PgBouncer was told to ignore (ignore_startup_parameters) would be dropped without a word', async () => {
    expect(await refused(`${lenient.url}?${SEARCH_PATH}`)).toEqual([
      'Kadu cannot start: DATABASE_URL: connections are pooled per transaction, which silently drops the session state of options; remove it from DATABASE_URL: Kadu applies DATABASE_SCHEMA and KADU_DEPENDENCY_TIMEOUT_MS inside every transaction',
    ]);
  });

  it('a session parameter PgBouncer refuses is named, with what to set instead', async () => {
    expect(await refused(`${transaction.url}?statement_timeout=5000`)).toEqual([
      'Kadu cannot start: DATABASE_URL: the connection pooler refuses the startup parameter statement_timeout; remove it from DATABASE_URL: Kadu applies DATABASE_SCHEMA and KADU_DEPENDENCY_TIMEOUT_MS inside every transaction',
    ]);
  });

  it('the same parameter on a direct connection is no problem (nothing pools it away)', async () => {
    expect(await databaseProblem(`${PG_DIRECT_URL}?${SEARCH_PATH}`)).toBeUndefined();
    expect(await databaseProblem(transaction.url)).toBeUndefined();
  });

  it('statement pooling, which cannot run a transaction', async () => {
    expect(await refused(statement.url)).toEqual([
      'Kadu cannot start: DATABASE_URL: the connection pooler runs in statement pooling mode, which cannot run a transaction; use pool_mode = transaction (or session)',
    ]);
  });
});

gate.describe("the tests' PgBouncer (scripts/pgbouncer.mjs) on a port another process took first", () => {
  // Answers every connection, as another test's server on the port would.
  const squatter = createServer((socket) => socket.end());
  let taken: number;
  beforeAll(async () => {
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    taken = (squatter.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => squatter.close(resolve)));

  it('moves to another port, and its URL reaches PostgreSQL through PgBouncer', async () => {
    const picked: number[] = [];
    const bouncer = await startPgbouncer(PG_DIRECT_URL, {
      pickPort: async () => {
        const port = picked.length === 0 ? taken : await freePort();
        picked.push(port);
        return port;
      },
    });
    try {
      expect(picked).toHaveLength(2);
      expect(bouncer.port).toBe(picked[1]);
      expect(bouncer.url).toContain(`:${picked[1]}/`);
      const client = new pg.Client({ connectionString: bouncer.url });
      await client.connect();
      const { rows } = await client.query('select 1 as one');
      await client.end();
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await bouncer.stop();
    }
  });

  it('gives up after three taken ports, with what PgBouncer said', async () => {
    let picks = 0;
    const pickPort = async () => {
      picks++;
      return taken;
    };
    const start = startPgbouncer(PG_DIRECT_URL, { pickPort });
    // Should it start after all (the failure this test looks for), it is stopped, not left behind.
    start.then((bouncer) => bouncer.stop()).catch(() => undefined);
    await expect(start).rejects.toThrow(
      /^PgBouncer did not start \(its port was taken\): .*cannot listen on 127\.0\.0\.1:\d+: bind\(\): Address already in use/,
    );
    expect(picks).toBe(3);
  });
});
