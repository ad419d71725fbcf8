import { resolve } from 'node:path';
import { type EnvKind, nonNegative, oneOf, prefix } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

export type NodeEnv = 'development' | 'production' | 'test';

/** NODE_ENV as the app reads it: anything but `production` or `test` is development. */
export const nodeEnvOf = (env: NodeJS.ProcessEnv): NodeEnv =>
  env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';

const nodeEnv: EnvKind<NodeEnv> = {
  allowed: '`development`, `production`, `test` (others: development)',
  parse: (raw) => (raw === undefined ? undefined : nodeEnvOf({ NODE_ENV: raw })),
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

class RuntimeEnv {
  @Env(nodeEnv, {
    default: 'development',
    meaning:
      '`production` requires `MCP_STATE_KEY`, refuses development tokens unless `ALLOW_DEV_TOKENS=true` and the development authorization server unless `ALLOW_DEV_AUTHORIZATION_SERVER=true`; logs are JSON',
  })
  NODE_ENV!: NodeEnv;

  @Env(prefix, {
    default: './data',
    allowed: 'folder path',
    meaning: 'data folder: development signing key, state key, embedded database, files (unless `S3_BUCKET`)',
  })
  DATA_DIR!: string;

  @Env(nonNegative, {
    default: '10000',
    meaning: 'SIGTERM/SIGINT: how long (ms) a graceful stop may take before the process exits anyway',
  })
  KADU_SHUTDOWN_TIMEOUT_MS!: number;

  @Env(oneOf(LOG_LEVELS, (got) => `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${got}'`), {
    default: 'info',
    meaning: "pino's level",
  })
  LOG_LEVEL!: string;

  @Env(oneOf(['json', 'pretty'] as const, (got) => `LOG_FORMAT must be json or pretty, got '${got}'`), {
    defaultText: '`json` in production, else `pretty`',
    meaning: '`json` (one object per line) or `pretty` (for people)',
  })
  LOG_FORMAT?: 'json' | 'pretty';
}

export interface RuntimeConfig {
  readonly env: NodeEnv;
  readonly dataDir: string;
  /** SIGTERM/SIGINT: how long a graceful stop may take before the process exits anyway (KADU_SHUTDOWN_TIMEOUT_MS). */
  readonly shutdownTimeoutMs: number;
  /** LOG_LEVEL (pino's levels) and LOG_FORMAT (`json`, or `pretty` for people; default by NODE_ENV). */
  readonly logLevel: string;
  readonly logFormat: 'json' | 'pretty';
}

export const runtimeConfig = defineSlice(
  'runtime',
  RuntimeEnv,
  ['env', 'dataDir', 'shutdownTimeoutMs', 'logLevel', 'logFormat'],
  (values): RuntimeConfig => ({
    env: values.NODE_ENV,
    dataDir: resolve(values.DATA_DIR),
    shutdownTimeoutMs: values.KADU_SHUTDOWN_TIMEOUT_MS,
    logLevel: values.LOG_LEVEL,
    logFormat: values.LOG_FORMAT ?? (values.NODE_ENV === 'production' ? 'json' : 'pretty'),
  }),
);
