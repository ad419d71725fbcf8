import { type EnvKind, milliseconds, text } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

const sqlIdentifier: EnvKind<string> = {
  allowed: 'lower-case SQL identifier (`[a-z_][a-z0-9_]*`, ≤ 63)',
  check: (raw) =>
    !raw || /^[a-z_][a-z0-9_]{0,62}$/.test(raw) ? undefined : 'DATABASE_SCHEMA must be a lower-case SQL identifier',
  parse: text.parse,
};

class DatabaseEnv {
  @Env(text, {
    allowed: '`postgres://` URL (reached at start)',
    meaning: 'PostgreSQL for the distributed topology (embedded store when absent)',
  })
  DATABASE_URL?: string;

  @Env(sqlIdentifier, {
    defaultText: '`public`',
    meaning:
      'PostgreSQL schema to use with `DATABASE_URL` (created if missing; set per transaction, so it holds behind PgBouncer)',
  })
  DATABASE_SCHEMA?: string;

  @Env(milliseconds, {
    default: '3000',
    meaning:
      'bound on every call to PostgreSQL (connection acquire and statement together), Redis and the object store; past it the request answers 503 + `Retry-After`',
  })
  KADU_DEPENDENCY_TIMEOUT_MS!: number;
}

export interface DatabaseConfig {
  readonly databaseUrl?: string;
  /** PostgreSQL schema (DATABASE_SCHEMA) when DATABASE_URL is set. */
  readonly databaseSchema?: string;
  /**
   * Bound on every call to PostgreSQL (connection acquire + query), Redis and the object store
   * (KADU_DEPENDENCY_TIMEOUT_MS): past it the call fails and the request answers 503.
   */
  readonly dependencyTimeoutMs: number;
}

export const databaseConfig = defineSlice(
  'database',
  DatabaseEnv,
  ['databaseUrl', 'databaseSchema', 'dependencyTimeoutMs'],
  (values): DatabaseConfig => ({
    databaseUrl: values.DATABASE_URL,
    databaseSchema: values.DATABASE_SCHEMA,
    dependencyTimeoutMs: values.KADU_DEPENDENCY_TIMEOUT_MS,
  }),
);
