import type pg from 'pg';

/**
 * Startup parameters that set session state. A transaction pooler (PgBouncer's pool_mode =
 * transaction) refuses them ("unsupported startup parameter") or, told to ignore them, drops them
 * silently: the schema or timeout they meant would be gone. Kadu sets its own per transaction
 * (postgres-database.ts), so in DATABASE_URL they are redundant at best.
 */
const SESSION_PARAMETERS = [
  'options',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'search_path',
];

const REMEDY =
  'remove it from DATABASE_URL: Kadu applies DATABASE_SCHEMA and KADU_DEPENDENCY_TIMEOUT_MS inside every transaction';

/** The startup parameters of a session setting in a postgres:// URL. */
export function sessionParameters(url: string): string[] {
  const { searchParams } = new URL(url);
  return SESSION_PARAMETERS.filter((name) => searchParams.has(name));
}

/** The line for a connection the pooler refused because of a startup parameter, if that is what happened. */
export function refusedParameterProblem(error: unknown): string | undefined {
  const match = /unsupported startup parameter: (\w+)/.exec((error as Error)?.message ?? '');
  return match ? `DATABASE_URL: the connection pooler refuses the startup parameter ${match[1]}; ${REMEDY}` : undefined;
}

/**
 * What a pooler in front of PostgreSQL would silently break, found on two clients connected to
 * the same URL:
 * - statement pooling (every statement on any server connection) cannot run a transaction;
 * - transaction pooling drops session state, so a session parameter in DATABASE_URL is lost.
 * Transaction pooling is recognised without naming the pooler: the server connection this client
 * used is handed to another client between two transactions, or this client moves to another one
 * (a direct connection, or session pooling, keeps one server process per client: never either).
 */
export async function poolerProblem(client: pg.Client, other: pg.Client, url: string): Promise<string | undefined> {
  const pid = async (c: pg.Client): Promise<number> =>
    (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const first = await pid(client);
  try {
    await other.query('begin');
  } catch (error) {
    if (/statement pooling/i.test((error as Error).message))
      return 'DATABASE_URL: the connection pooler runs in statement pooling mode, which cannot run a transaction; use pool_mode = transaction (or session)';
    throw error;
  }
  const held = await pid(other);
  const again = await pid(client);
  await other.query('rollback');
  const pooled = held === first || again !== first;
  const parameters = sessionParameters(url);
  if (pooled && parameters.length)
    return `DATABASE_URL: connections are pooled per transaction, which silently drops the session state of ${parameters.join(', ')}; ${REMEDY}`;
  return undefined;
}
