import { resolve } from 'node:path';
import type { RedisTopology } from '@kobana/nest-mcp/redis';
import { redisTopology } from './redis-config.js';

/** Everything the app reads from its environment, resolved once. */
export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly publicBaseUrl: string;
  readonly databaseUrl?: string;
  /** Where Redis is: REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS (redis-config.ts). */
  readonly redis?: RedisTopology;
  /** Key prefix in Redis (REDIS_PREFIX), so several deployments can share one server. */
  readonly redisPrefix: string;
  readonly mcpStateKey?: string;
  /** Set with OAUTH_JWKS_URL for a real authorization server; absent means development tokens. */
  readonly oauthIssuer: string;
  readonly oauthJwksUrl?: string;
  /** How long a fetch of the JWKS may take before requests answer 503 (OAUTH_JWKS_TIMEOUT_MS, default 5 s). */
  readonly oauthJwksTimeoutMs: number;
  readonly devTokens: boolean;
  /**
   * The development authorization server (src/oauth) runs in this app: on by default with
   * development tokens outside production (OAUTH_DEV_SERVER=on|off); in production only with
   * ALLOW_DEV_AUTHORIZATION_SERVER=true.
   */
  readonly devAuthServer: boolean;
  /**
   * The documents the development authorization server fetches (Client ID Metadata Documents,
   * sector_identifier_uri, jwks_uri) may be on loopback addresses (OAUTH_DEV_CIMD_ALLOW_LOOPBACK;
   * tests). Private, link-local and metadata addresses never.
   */
  readonly devCimdAllowLoopback: boolean;
  /** Client registrations one address may make, "points/seconds" or "off" (OAUTH_DEV_REGISTRATION_RATE, default 20/600). */
  readonly devRegistrationRate: { points: number; durationSec: number } | false;
  /** Clients the development authorization server registers per 14 days, all addresses (OAUTH_DEV_MAX_CLIENTS, default 1000). */
  readonly devMaxClients: number;
  /** The MCP endpoint's canonical URL: the only audience the MCP door accepts (RFC 8707). */
  readonly mcpAudience: string;
  /** The only audience the REST API accepts. */
  readonly apiAudience: string;
  readonly bodyLimit: number;
  /** Largest upload accepted on a presigned URL (KADU_MAX_FILE_BYTES, default 50 MiB). */
  readonly maxFileBytes: number;
  readonly uploadUrlTtlSeconds: number;
  readonly downloadUrlTtlSeconds: number;
  /** Loopback webhook URLs are refused unless explicitly allowed (development and tests). */
  readonly webhookAllowLoopback: boolean;
  readonly webhookRetryBaseMs: number;
  readonly webhookMaxAttempts: number;
  readonly webhookTimeoutMs: number;
  readonly executionConcurrency: number;
  /** Pause inside each simulated agent step (KADU_STEP_DELAY_MS), to watch executions run. */
  readonly stepDelayMs: number;
  /** Rate limits "points/seconds" or "off" (KADU_RATE_GENERAL, KADU_RATE_WRITES, KADU_RATE_FAILED_AUTH). */
  readonly rateLimits: Record<'general' | 'writes' | 'failedAuth', { points: number; durationSec: number } | false>;
  /** Queued executions beyond which runs answer 503 (KADU_QUEUE_MAX_DEPTH). */
  readonly queueMaxDepth: number;
  /** With Redis: how long a worker's hold on an execution lasts unrenewed before another replica takes it over (KADU_QUEUE_LOCK_MS). */
  readonly queueLockMs: number;
  /** PostgreSQL schema (DATABASE_SCHEMA) when DATABASE_URL is set. */
  readonly databaseSchema?: string;
  /**
   * Bound on every call to PostgreSQL (connection acquire + query), Redis and the object store
   * (KADU_DEPENDENCY_TIMEOUT_MS): past it the call fails and the request answers 503.
   */
  readonly dependencyTimeoutMs: number;
  /** subscriptions/listen: streams one member may hold open on one replica (KADU_LISTEN_MAX_STREAMS). */
  readonly listenMaxStreams: number;
  /** subscriptions/listen: resource URIs one stream may follow (KADU_LISTEN_MAX_SUBSCRIPTIONS). */
  readonly listenMaxSubscriptions: number;
  /** subscriptions/listen: interval of the keep-alive comment on idle streams (KADU_LISTEN_HEARTBEAT_MS). */
  readonly listenHeartbeatMs: number;
  /** How often every replica looks for executions orphaned by a dead worker or an outage (KADU_SWEEP_INTERVAL_MS). */
  readonly sweepIntervalMs: number;
  /** The development signing key given explicitly (DEV_SIGNING_KEY: a private JWK), shared by replicas. */
  readonly devSigningKey?: string;
  /** A file holding that key (DEV_SIGNING_KEY_FILE), e.g. on a volume every replica mounts. */
  readonly devSigningKeyFile?: string;
  /** Files in an S3-compatible bucket (S3_BUCKET set) instead of the data folder. */
  readonly s3?: S3Config;
  /** SIGTERM/SIGINT: how long a graceful stop may take before the process exits anyway (KADU_SHUTDOWN_TIMEOUT_MS). */
  readonly shutdownTimeoutMs: number;
  /** LOG_LEVEL (pino's levels) and LOG_FORMAT (`json`, or `pretty` for people; default by NODE_ENV). */
  readonly logLevel: string;
  readonly logFormat: 'json' | 'pretty';
}

export interface S3Config {
  readonly bucket: string;
  /** Absent: AWS S3 in `region`. */
  readonly endpoint?: string;
  /** The endpoint written into presigned URLs, when clients reach the store by another address. */
  readonly publicEndpoint?: string;
  readonly region: string;
  /** Absent: the SDK's default credential chain (AWS_* variables, instance role…). */
  readonly credentials?: { accessKeyId: string; secretAccessKey: string };
  readonly forcePathStyle: boolean;
  /** Key prefix inside the bucket (S3_PREFIX), so deployments can share a bucket. */
  readonly prefix: string;
}

/** Every problem of the environment at once, one line each (start-up prints them and exits 1). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * Reads the environment. Malformed values are collected, not thrown one by one: a ConfigError
 * lists them all. Policy (production needs a state key…) and reachability are checked at start-up
 * (`startup-check.ts`), so that tests and the token command can build a configuration freely.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const check = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (error) {
      problems.push((error as Error).message);
      return fallback;
    }
  };
  const port = check(() => integer(env.PORT, 3000, 'PORT'), 3000);
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (!URL.canParse(publicBaseUrl)) problems.push(`PUBLIC_BASE_URL must be an absolute URL, got '${publicBaseUrl}'`);
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const devTokens = !env.OAUTH_JWKS_URL;
  if (!devTokens && !env.OAUTH_ISSUER) problems.push('OAUTH_JWKS_URL is set but OAUTH_ISSUER is not');
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  const logFormat = env.LOG_FORMAT ?? (nodeEnv === 'production' ? 'json' : 'pretty');
  if (logFormat !== 'json' && logFormat !== 'pretty')
    problems.push(`LOG_FORMAT must be json or pretty, got '${logFormat}'`);
  const devAuthServer = check(() => devAuthServerOn(env, nodeEnv, devTokens), false);
  const config: AppConfig = {
    env: nodeEnv,
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: resolve(env.DATA_DIR ?? './data'),
    publicBaseUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    redis: check(() => redisTopology(env), undefined),
    redisPrefix: env.REDIS_PREFIX ?? 'kadu:',
    mcpStateKey: env.MCP_STATE_KEY || undefined,
    oauthIssuer: env.OAUTH_ISSUER ?? publicBaseUrl,
    oauthJwksUrl: env.OAUTH_JWKS_URL || undefined,
    oauthJwksTimeoutMs: number(env.OAUTH_JWKS_TIMEOUT_MS, 5000),
    devTokens,
    devAuthServer,
    devCimdAllowLoopback: env.OAUTH_DEV_CIMD_ALLOW_LOOPBACK === 'true',
    devRegistrationRate: check(
      () => budget(env.OAUTH_DEV_REGISTRATION_RATE, '20/600', 'OAUTH_DEV_REGISTRATION_RATE'),
      false,
    ),
    devMaxClients: check(() => count(env.OAUTH_DEV_MAX_CLIENTS, 1000, 'OAUTH_DEV_MAX_CLIENTS'), 1000),
    mcpAudience: env.MCP_AUDIENCE ?? `${publicBaseUrl}/mcp`,
    apiAudience: env.API_AUDIENCE ?? `${publicBaseUrl}/api/v1`,
    bodyLimit: 1_048_576,
    maxFileBytes: check(() => number(env.KADU_MAX_FILE_BYTES, 50 * 1024 * 1024, 'KADU_MAX_FILE_BYTES'), 0),
    uploadUrlTtlSeconds: check(() => number(env.KADU_UPLOAD_URL_TTL, 600, 'KADU_UPLOAD_URL_TTL'), 600),
    downloadUrlTtlSeconds: check(() => number(env.KADU_DOWNLOAD_URL_TTL, 300, 'KADU_DOWNLOAD_URL_TTL'), 300),
    webhookAllowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === 'true',
    webhookRetryBaseMs: check(() => number(env.WEBHOOK_RETRY_BASE_MS, 1000, 'WEBHOOK_RETRY_BASE_MS'), 1000),
    webhookMaxAttempts: check(() => number(env.WEBHOOK_MAX_ATTEMPTS, 5, 'WEBHOOK_MAX_ATTEMPTS'), 5),
    webhookTimeoutMs: check(() => number(env.WEBHOOK_TIMEOUT_MS, 5000, 'WEBHOOK_TIMEOUT_MS'), 5000),
    executionConcurrency: check(
      () =>
        concurrency(
          env.KADU_EXECUTION_CONCURRENCY,
          Boolean(env.REDIS_URL || env.REDIS_CLUSTER_NODES || env.REDIS_SENTINELS),
        ),
      2,
    ),
    stepDelayMs: check(() => number(env.KADU_STEP_DELAY_MS, 0, 'KADU_STEP_DELAY_MS'), 0),
    databaseSchema: check(() => schema(env.DATABASE_SCHEMA), undefined),
    rateLimits: {
      general: check(() => budget(env.KADU_RATE_GENERAL, '300/60', 'KADU_RATE_GENERAL'), false),
      writes: check(() => budget(env.KADU_RATE_WRITES, '60/60', 'KADU_RATE_WRITES'), false),
      failedAuth: check(() => budget(env.KADU_RATE_FAILED_AUTH, '20/300', 'KADU_RATE_FAILED_AUTH'), false),
    },
    queueMaxDepth: check(() => number(env.KADU_QUEUE_MAX_DEPTH, 1000, 'KADU_QUEUE_MAX_DEPTH'), 1000),
    queueLockMs: check(() => positive(env.KADU_QUEUE_LOCK_MS, 10_000, 'KADU_QUEUE_LOCK_MS'), 10_000),
    dependencyTimeoutMs: check(
      () => positive(env.KADU_DEPENDENCY_TIMEOUT_MS, 3_000, 'KADU_DEPENDENCY_TIMEOUT_MS'),
      3_000,
    ),
    sweepIntervalMs: check(() => positive(env.KADU_SWEEP_INTERVAL_MS, 5_000, 'KADU_SWEEP_INTERVAL_MS'), 5_000),
    listenMaxStreams: check(() => count(env.KADU_LISTEN_MAX_STREAMS, 10, 'KADU_LISTEN_MAX_STREAMS'), 10),
    listenMaxSubscriptions: check(
      () => count(env.KADU_LISTEN_MAX_SUBSCRIPTIONS, 100, 'KADU_LISTEN_MAX_SUBSCRIPTIONS'),
      100,
    ),
    listenHeartbeatMs: check(() => positive(env.KADU_LISTEN_HEARTBEAT_MS, 15_000, 'KADU_LISTEN_HEARTBEAT_MS'), 15_000),
    devSigningKey: env.DEV_SIGNING_KEY || undefined,
    devSigningKeyFile: env.DEV_SIGNING_KEY_FILE ? resolve(env.DEV_SIGNING_KEY_FILE) : undefined,
    s3: check(() => s3Config(env), undefined),
    shutdownTimeoutMs: check(() => number(env.KADU_SHUTDOWN_TIMEOUT_MS, 10_000, 'KADU_SHUTDOWN_TIMEOUT_MS'), 10_000),
    logLevel,
    logFormat: logFormat === 'json' ? 'json' : 'pretty',
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

function s3Config(env: NodeJS.ProcessEnv): S3Config | undefined {
  if (!env.S3_BUCKET) return undefined;
  for (const name of ['S3_ENDPOINT', 'S3_PUBLIC_ENDPOINT'] as const) {
    if (env[name] && !URL.canParse(env[name])) throw new Error(`${name} must be an absolute URL, got '${env[name]}'`);
  }
  const accessKeyId = env.S3_ACCESS_KEY_ID;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  return {
    bucket: env.S3_BUCKET,
    endpoint: env.S3_ENDPOINT || undefined,
    publicEndpoint: env.S3_PUBLIC_ENDPOINT || undefined,
    region: env.S3_REGION || 'us-east-1',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    prefix: env.S3_PREFIX ?? '',
  };
}

/**
 * The development authorization server signs with the development key, so it needs development
 * tokens; and it never runs in production unless explicitly allowed.
 */
function devAuthServerOn(env: NodeJS.ProcessEnv, nodeEnv: AppConfig['env'], devTokens: boolean): boolean {
  const setting = env.OAUTH_DEV_SERVER ?? 'auto';
  if (!['auto', 'on', 'off'].includes(setting))
    throw new Error(`OAUTH_DEV_SERVER must be on, off or auto, got '${setting}'`);
  if (setting === 'off') return false;
  if (setting === 'auto') return devTokens && nodeEnv !== 'production';
  if (!devTokens)
    throw new Error(
      'OAUTH_DEV_SERVER=on needs development tokens: it signs with the development key, which OAUTH_JWKS_URL turns off',
    );
  if (nodeEnv === 'production' && env.ALLOW_DEV_AUTHORIZATION_SERVER !== 'true') {
    throw new Error(
      'Refusing to start in production with the development authorization server: set ALLOW_DEV_AUTHORIZATION_SERVER=true to allow it, or OAUTH_DEV_SERVER=off',
    );
  }
  return true;
}

function positive(value: string | undefined, fallback: number, name: string): number {
  const n = number(value, fallback, name);
  if (n < 1) throw new Error(`${name} must be at least 1 (milliseconds), got '${value}'`);
  return n;
}

function count(value: string | undefined, fallback: number, name: string): number {
  const n = number(value, fallback, name);
  if (n < 1 || !Number.isInteger(n)) throw new Error(`${name} must be a whole number of at least 1, got '${value}'`);
  return n;
}

function number(value: string | undefined, fallback: number, name = 'a setting'): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got '${value}'`);
  return n;
}

/** 0 makes a replica that only queues (others run the work): possible only with the shared queue. */
function concurrency(value: string | undefined, sharedQueue: boolean): number {
  const n = number(value, 2, 'KADU_EXECUTION_CONCURRENCY');
  if (!Number.isInteger(n)) throw new Error(`KADU_EXECUTION_CONCURRENCY must be an integer, got '${value}'`);
  if (n === 0 && !sharedQueue)
    throw new Error(
      'KADU_EXECUTION_CONCURRENCY=0 needs Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS): with the in-process queue nothing would ever run',
    );
  return n;
}

function budget(
  value: string | undefined,
  fallback: string,
  name: string,
): { points: number; durationSec: number } | false {
  const text = value ?? fallback;
  if (text === 'off') return false;
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new Error(`${name} must be "points/seconds" or "off", got '${text}'`);
  return { points: Number(m[1]), durationSec: Number(m[2]) };
}

function schema(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value)) throw new Error('DATABASE_SCHEMA must be a lower-case SQL identifier');
  return value;
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be an integer port, got '${value}'`);
  return n;
}
