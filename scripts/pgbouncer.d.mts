export declare const PGBOUNCER_BIN: string;
export declare function pgbouncerMissing(): string | undefined;
export interface RunningPgbouncer {
  /** The target's URL, reaching its database through PgBouncer. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}
export declare function startPgbouncer(
  targetUrl: string,
  options?: {
    mode?: 'transaction' | 'statement' | 'session';
    poolSize?: number;
    ignoreStartupParameters?: string[];
    /** Where ports come from (a free one by default). */
    pickPort?: () => Promise<number>;
  },
): Promise<RunningPgbouncer>;
