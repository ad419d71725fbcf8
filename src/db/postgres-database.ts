import pg from 'pg';
import { ApiError } from '../common/api-error.js';
import { AvailabilityGate } from '../common/availability-gate.js';
import type { Database, Queryable } from './database.js';
import { asInputError } from './input-errors.js';
import { MIGRATION_LOCK, MIGRATION_TIMEOUT_MS } from './migrations.js';

// Codes and messages that say "the server cannot be reached", not "this SQL is wrong".
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|timeout expired/i;
// The server cancelled a statement that ran past statement_timeout: the same bound, seen from the server.
const STATEMENT_TIMEOUT = '57014';
// A COMMIT or ROLLBACK is not cut short because its statement used the call's budget up.
const COMMIT_MS = 1000;

// The client's own timer waits this much past the server's statement_timeout, so a statement the
// server cancels (a held lock: 57014) answers 503 without taking the connection for lost; the timer
// still ends a call the server never answers (partition).
const SERVER_FIRST_MS = 250;

type Run = <R>(sql: string, params?: readonly unknown[]) => Promise<R[]>;

class QueryTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function lostConnection(error: unknown): boolean {
  if (error instanceof QueryTimeout) return true;
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return Boolean(code && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGES.test(message ?? '');
}

/** A database that cannot be reached answers 503 with Retry-After, not 500: the client should come back. */
function unavailable(): ApiError {
  return new ApiError(
    503,
    'database_unavailable',
    'Service unavailable',
    'The database cannot be reached; retry shortly',
  ).withHeader('Retry-After', '5');
}

export interface PostgresOptions {
  schema?: string;
  /** Bound on one call: acquiring a connection plus running the statement. */
  timeoutMs: number;
}

/**
 * The distributed topology: a PostgreSQL server shared by every replica. Every call is bounded
 * (connection acquire and statement together), a connection whose statement overran is destroyed
 * rather than reused, and while the server is away calls are refused at once (AvailabilityGate).
 *
 * PgBouncer-safe (docs/operators/topologies.md, "PostgreSQL behind PgBouncer"): the connection
 * carries no session state — no startup parameters, no session SET, no session advisory lock,
 * LISTEN or named prepared statement. Every call is one transaction that opens with
 * `SET LOCAL statement_timeout` and `SET LOCAL search_path`, so a transaction-pooling proxy that
 * hands each transaction a different server connection still bounds it and keeps it in the schema.
 */
export class PostgresDatabase implements Database {
  readonly driver = 'postgres' as const;
  private readonly gate: AvailabilityGate;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly timeoutMs: number,
    private readonly schema: string | undefined,
  ) {
    this.gate = new AvailabilityGate('Database', () => this.probe());
  }

  static async open(url: string, options: PostgresOptions): Promise<PostgresDatabase> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: options.timeoutMs,
    });
    // An idle client that errors (server restart, partition) must not crash the process.
    pool.on('error', () => undefined);
    const db = new PostgresDatabase(pool, options.timeoutMs, options.schema);
    if (options.schema) await createSchema(db, options.schema);
    return db;
  }

  /**
   * One statement, in a transaction of its own (its bound and schema are transaction-local). The
   * call keeps one budget: acquire, BEGIN and the statement share it; COMMIT gets what is left, at
   * least COMMIT_MS.
   */
  query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.withClient((run, remainingMs) => this.inTransaction(run, remainingMs(), () => run<T>(sql, params)), {
      oneBudget: true,
    });
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>, options: { timeoutMs?: number } = {}): Promise<T> {
    return this.withClient(
      (run) => this.inTransaction(run, options.timeoutMs ?? this.timeoutMs, () => work({ query: run })),
      {
        statementMs: options.timeoutMs,
      },
    );
  }

  async ping(): Promise<void> {
    await this.query('select 1');
  }

  async close(): Promise<void> {
    this.gate.close();
    await this.pool.end();
  }

  private async inTransaction<T>(run: Run, statementMs: number, work: () => Promise<T>): Promise<T> {
    // One round trip: the simple protocol takes several statements when they have no parameters.
    await run(this.opening(statementMs));
    try {
      const result = await work();
      await run('commit');
      return result;
    } catch (error) {
      await run('rollback').catch(() => undefined);
      throw error;
    }
  }

  /**
   * BEGIN with the transaction's own statement timeout (the server cancels a statement the client
   * has given up on: 57014) and search path — never session state, which a pooler would hand to
   * the next client or lose. The schema is a checked identifier (app-config.ts), quoted anyway.
   */
  private opening(statementMs: number): string {
    const parts = ['begin', `set local statement_timeout = ${Math.max(1, Math.floor(statementMs))}`];
    if (this.schema) parts.push(`set local search_path = "${this.schema.replaceAll('"', '""')}"`);
    return parts.join('; ');
  }

  /** What the gate runs while the server is away: one real round trip, bounded like any call. */
  private async probe(): Promise<void> {
    await this.withClient(async (run) => run('select 1'), { probing: true });
  }

  /**
   * Runs `work` on one pooled connection. The first statement shares the call's budget with the
   * connection acquire (one call, one timeout); later statements of a transaction get their own,
   * unless `oneBudget` (a single query: every statement takes what is left of the call's).
   */
  private async withClient<T>(
    work: (run: Run, remainingMs: () => number) => Promise<T>,
    options: { probing?: boolean; statementMs?: number; oneBudget?: boolean } = {},
  ): Promise<T> {
    if (this.gate.isDown && !options.probing) throw unavailable();
    const started = Date.now();
    const remainingMs = (): number => Math.max(1, this.timeoutMs - (Date.now() - started));
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failed(error);
    }
    let broken: unknown;
    // A checked-out connection that breaks emits 'error'; unheard, that would end the process.
    const onError = (error: unknown): void => void (broken ??= error);
    client.on('error', onError);
    let first = true;
    const run = async <R>(sql: string, params: readonly unknown[] = []): Promise<R[]> => {
      if (broken) throw broken;
      const ending = sql === 'commit' || sql === 'rollback';
      const budget =
        first || options.oneBudget
          ? Math.max(remainingMs(), ending ? COMMIT_MS : 0)
          : (options.statementMs ?? this.timeoutMs);
      first = false;
      try {
        return (await bounded(client.query(sql, params as unknown[]), budget + SERVER_FIRST_MS)).rows as R[];
      } catch (error) {
        if (lostConnection(error)) broken ??= error;
        throw error;
      }
    };
    try {
      return await work(run, remainingMs);
    } catch (error) {
      throw this.failed(broken ?? error);
    } finally {
      client.off('error', onError);
      // A connection that overran or broke is destroyed, never handed to the next caller.
      client.release(broken instanceof Error ? broken : broken ? new Error(String(broken)) : undefined);
    }
  }

  /** Connection trouble trips the gate and answers 503; a statement the server timed out answers 503; anything else is the caller's. */
  private failed(error: unknown): unknown {
    if (lostConnection(error)) {
      this.gate.trip(error);
      return unavailable();
    }
    return (error as { code?: string }).code === STATEMENT_TIMEOUT ? unavailable() : asInputError(error);
  }
}

function bounded<R>(promise: Promise<R>, ms: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueryTimeout(ms)), ms);
  });
  promise.catch(() => undefined); // it may still settle after the timeout
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

/**
 * Creates the configured schema once, however many replicas start together: under the creation
 * lock, asked of the catalog table; and a replica that still meets the schema being created by
 * another (23505 on pg_namespace, or 42P06 — seen once when three replicas started at once) takes
 * it as there, after checking that it is.
 */
async function createSchema(db: PostgresDatabase, schema: string): Promise<void> {
  try {
    await db.transaction(
      async (tx) => {
        await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
        const found = await tx.query('select 1 from pg_namespace where nspname = $1', [schema]);
        if (found.length === 0) await tx.query(`create schema ${schema}`);
      },
      { timeoutMs: MIGRATION_TIMEOUT_MS },
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== '23505' && code !== '42P06') throw error;
    const found = await db.query('select 1 from pg_namespace where nspname = $1', [schema]);
    if (found.length === 0) throw error;
  }
}
