import type { Database } from './database.js';

/**
 * Forward-only migrations, applied in order at start inside one transaction each. The lock keeps
 * two replicas starting together from applying the same migration twice.
 */
const MIGRATIONS: readonly { id: number; name: string; sql: string }[] = [
  {
    id: 1,
    name: 'kadu domain',
    sql: `
create table organizations (
  id text primary key,
  slug text not null unique,
  name text not null,
  plan_name text not null,
  monthly_budget integer not null,
  max_concurrent_executions integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create table members (
  id text primary key,
  org_id text not null references organizations(id),
  email text not null,
  name text not null,
  role text not null,
  status text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index members_org_email on members (org_id, email) where deleted_at is null;
create table tasks (
  id text primary key,
  org_id text not null references organizations(id),
  name text not null,
  description text not null,
  kind text not null,
  instructions text not null,
  input_schema jsonb,
  cost_cap integer not null,
  launch_policy jsonb not null,
  destinations jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index tasks_org on tasks (org_id, id desc);
create table executions (
  id text primary key,
  org_id text not null references organizations(id),
  task_id text not null references tasks(id),
  status text not null,
  input jsonb,
  input_file_ids jsonb not null,
  output jsonb,
  output_file_ids jsonb not null,
  question jsonb,
  answers jsonb,
  error jsonb,
  cost_spent integer not null default 0,
  cost_cap integer not null,
  cancel_requested boolean not null default false,
  requested_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index executions_org on executions (org_id, id desc);
create index executions_status on executions (status);
create table execution_steps (
  id text primary key,
  org_id text not null,
  execution_id text not null references executions(id),
  seq integer not null,
  kind text not null,
  summary text not null,
  created_at timestamptz not null default now(),
  unique (execution_id, seq)
);
create table files (
  id text primary key,
  org_id text not null references organizations(id),
  name text not null,
  content_type text not null,
  size integer not null,
  sha256 text not null,
  status text not null,
  purpose text not null,
  uploaded_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index files_org on files (org_id, id desc);
create table webhooks (
  id text primary key,
  org_id text not null references organizations(id),
  url text not null,
  events jsonb not null,
  active boolean not null,
  secret_sealed text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index webhooks_org on webhooks (org_id, id desc);
create table webhook_deliveries (
  id text primary key,
  org_id text not null references organizations(id),
  webhook_id text not null references webhooks(id),
  event text not null,
  payload jsonb not null,
  status text not null,
  attempts integer not null default 0,
  response_code integer,
  last_error text,
  replay_of text,
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index deliveries_org on webhook_deliveries (org_id, id desc);
create index deliveries_due on webhook_deliveries (status, next_attempt_at);
create table secrets (
  id text primary key,
  org_id text not null references organizations(id),
  name text not null,
  description text not null,
  version integer not null default 0,
  value_sealed text,
  rotated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index secrets_org_name on secrets (org_id, name) where deleted_at is null;
create table secret_entry_links (
  token_hash text primary key,
  org_id text not null,
  secret_id text not null references secrets(id),
  expires_at timestamptz not null,
  used_at timestamptz
);
create table idempotency_keys (
  org_id text not null,
  key text not null,
  request_hash text not null,
  state text not null,
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (org_id, key)
);
create table file_uploads_used (
  file_id text primary key,
  used_at timestamptz not null default now()
);
`,
  },
  {
    id: 2,
    name: 'webhook delivery claims',
    // Which replica holds the current attempt, until when: one attempt per scheduled attempt, whatever
    // the number of replicas; a claim whose replica died lapses and the attempt is made again.
    sql: `alter table webhook_deliveries add column claim_token text;
alter table webhook_deliveries add column claimed_until timestamptz`,
  },
  {
    id: 3,
    name: 'secret entry links: who asked, and cancellation by a newer rotation',
    // Only the newest link of a secret may set its value; its page names the member who asked.
    sql: `alter table secret_entry_links add column requested_by text;
alter table secret_entry_links add column canceled_at timestamptz;
create index secret_entry_links_open on secret_entry_links (secret_id) where used_at is null and canceled_at is null`,
  },
  {
    id: 4,
    name: 'executions resume after an outage: run token, resumes, where the run began',
    // run_token fences every write of a run (a worker that lost its hold writes nothing once another
    // took over); resumes bounds how often one run is taken up again; run_start_seq is the last step
    // recorded before the run began, so a resumed run replays the steps after it instead of redoing them.
    sql: `alter table executions add column run_token text;
alter table executions add column resumes integer not null default 0;
alter table executions add column run_start_seq integer`,
  },
  {
    id: 5,
    name: 'webhook deliveries keep the trace that queued them',
    sql: `alter table webhook_deliveries add column trace_parent text`,
  },
];

/**
 * Serializes schema changes of one schema across replicas starting together ("if not exists"
 * alone races in PostgreSQL); the second key is the schema's, so deployments do not wait for each other.
 */
export const MIGRATION_LOCK = 727274;
/** Schema changes may wait for another replica's: they get longer than a request's bound. */
export const MIGRATION_TIMEOUT_MS = 60_000;

const LOCK_SCHEMA = `select pg_advisory_xact_lock(${MIGRATION_LOCK}, hashtext(coalesce(current_schema(), '')))`;

/** The newest migration's id: what a migrated database's schema_migrations ends with (the build's template records it). */
export const LATEST_MIGRATION = MIGRATIONS[MIGRATIONS.length - 1]!.id;

export async function migrate(db: Database): Promise<number> {
  if (await upToDate(db)) return 0;
  const options = { timeoutMs: MIGRATION_TIMEOUT_MS };
  await db.transaction(async (tx) => {
    if (db.driver === 'postgres') await tx.query(LOCK_SCHEMA);
    await tx.query(
      'create table if not exists schema_migrations (id integer primary key, name text not null, applied_at timestamptz not null default now())',
    );
  }, options);
  let applied = 0;
  for (const migration of MIGRATIONS) {
    const done = await db.transaction(async (tx) => {
      if (db.driver === 'postgres') await tx.query(LOCK_SCHEMA);
      const exists = await tx.query('select 1 from schema_migrations where id = $1', [migration.id]);
      if (exists.length) return false;
      for (const statement of migration.sql
        .split(';')
        .map((s) => s.trim())
        .filter(Boolean))
        await tx.query(statement);
      await tx.query('insert into schema_migrations (id, name) values ($1, $2)', [migration.id, migration.name]);
      return true;
    }, options);
    if (done) applied++;
  }
  return applied;
}

/**
 * Whether every migration is recorded already — what most starts find (an embedded first start
 * copies a migrated template, pglite-data-dir.ts). Two reads instead of a transaction per
 * migration (~0.1 s of an embedded start, bench/RESULTS.md "Start-up"). Without the lock: a
 * recorded migration was committed, and none is ever removed; anything missing takes the locked path.
 */
async function upToDate(db: Database): Promise<boolean> {
  const [table] = await db.query<{ present: boolean }>(
    "select to_regclass('schema_migrations') is not null as present",
  );
  if (!table?.present) return false;
  const recorded = new Set((await db.query<{ id: number }>('select id from schema_migrations')).map((row) => row.id));
  return MIGRATIONS.every((migration) => recorded.has(migration.id));
}
