/** The one SQL surface the app uses: PostgreSQL dialect, `$1` parameters, two drivers. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Database extends Queryable {
  /**
   * Runs `work` in one transaction: all its writes land together or not at all. Each statement is
   * bounded by the driver's timeout, or by `timeoutMs` (schema changes, which may wait for another
   * replica's).
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: { timeoutMs?: number }): Promise<T>;
  /** Cheap liveness probe. */
  ping(): Promise<void>;
  close(): Promise<void>;
  readonly driver: 'pglite' | 'postgres';
}

export const DATABASE = Symbol('DATABASE');
