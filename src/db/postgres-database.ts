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
 */
export class PostgresDatabase implements Database {
  readonly driver = 'postgres' as const;
  private readonly gate: AvailabilityGate;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly timeoutMs: number,
  ) {
    this.gate = new AvailabilityGate('Database', () => this.probe());
  }

  static async open(url: string, options: PostgresOptions): Promise<PostgresDatabase> {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: options.timeoutMs,
      // The server stops a statement the client has given up on.
      statement_timeout: options.timeoutMs,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle client that errors (server restart, partition) must not crash the process.
    pool.on('error', () => undefined);
    const db = new PostgresDatabase(pool, options.timeoutMs);
    if (options.schema) {
      const schema = options.schema;
      await db.transaction(
        async (tx) => {
          await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
          await tx.query(`create schema if not exists ${schema}`);
        },
        { timeoutMs: MIGRATION_TIMEOUT_MS },
      );
    }
    return db;
  }

  query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.withClient(async (run) => run<T>(sql, params));
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>, options: { timeoutMs?: number } = {}): Promise<T> {
    return this.withClient(
      async (run) => {
        await run('begin');
        if (options.timeoutMs) await run(`set local statement_timeout = ${Math.floor(options.timeoutMs)}`);
        try {
          const result = await work({ query: run });
          await run('commit');
          return result;
        } catch (error) {
          await run('rollback').catch(() => undefined);
          throw error;
        }
      },
      false,
      options.timeoutMs,
    );
  }

  async ping(): Promise<void> {
    await this.query('select 1');
  }

  async close(): Promise<void> {
    this.gate.close();
    await this.pool.end();
  }

  /** What the gate runs while the server is away: one real round trip, bounded like any call. */
  private async probe(): Promise<void> {
    await this.withClient(async (run) => run('select 1'), true);
  }

  /**
   * Runs `work` on one pooled connection. The first statement shares the call's budget with the
   * connection acquire (one call, one timeout); later statements of a transaction get their own.
   */
  private async withClient<T>(
    work: (run: <R>(sql: string, params?: readonly unknown[]) => Promise<R[]>) => Promise<T>,
    probing = false,
    statementMs = this.timeoutMs,
  ): Promise<T> {
    if (this.gate.isDown && !probing) throw unavailable();
    const started = Date.now();
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
      const budget = first ? Math.max(1, this.timeoutMs - (Date.now() - started)) : statementMs;
      first = false;
      try {
        return (await bounded(client.query(sql, params as unknown[]), budget)).rows as R[];
      } catch (error) {
        if (lostConnection(error)) broken ??= error;
        throw error;
      }
    };
    try {
      return await work(run);
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
