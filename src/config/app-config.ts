import { ConfigError } from './config-error.js';
import { type AuthConfig, authConfig } from './slices/auth.config.js';
import { type DatabaseConfig, databaseConfig } from './slices/database.config.js';
import { type ExecutionsConfig, executionsConfig } from './slices/executions.config.js';
import { type FilesConfig, filesConfig } from './slices/files.config.js';
import { type HttpConfig, httpConfig } from './slices/http.config.js';
import { type LimitsConfig, limitsConfig } from './slices/limits.config.js';
import { type McpConfig, mcpConfig } from './slices/mcp.config.js';
import { type OauthConfig, oauthConfig } from './slices/oauth.config.js';
import { type RedisConfig, redisConfig } from './slices/redis.config.js';
import { type RuntimeConfig, runtimeConfig } from './slices/runtime.config.js';
import { type WebhooksConfig, webhooksConfig } from './slices/webhooks.config.js';

export { ConfigError } from './config-error.js';
export type { S3Config } from './slices/files.config.js';

/**
 * Everything the app reads from its environment, resolved once: the slices side by side, each
 * field where it always was. A module that needs one domain only can inject that slice instead
 * (`@Inject(databaseConfig.KEY) config: DatabaseConfig`, same field names).
 */
export type AppConfig = HttpConfig &
  RuntimeConfig &
  AuthConfig &
  OauthConfig &
  DatabaseConfig &
  RedisConfig &
  McpConfig &
  FilesConfig &
  ExecutionsConfig &
  WebhooksConfig &
  LimitsConfig;

/**
 * The slices, each registered with `registerAs` under its namespace. Their order is the order of
 * the problems at start and of the configuration table (docs/operators/configuration.md).
 */
export const CONFIG_SLICES = [
  httpConfig,
  runtimeConfig,
  authConfig,
  oauthConfig,
  databaseConfig,
  redisConfig,
  mcpConfig,
  filesConfig,
  executionsConfig,
  webhooksConfig,
  limitsConfig,
] as const;

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * Reads the environment through the schema of every slice. Malformed values are collected, not
 * thrown one by one: a ConfigError lists them all. Policy (production needs a state key…) and
 * reachability are checked at start-up (`startup-check.ts`), so that tests and the token command
 * can build a configuration freely.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const slices: object[] = [];
  for (const slice of CONFIG_SLICES) {
    const read = slice.read(env);
    problems.push(...read.problems);
    if (read.value) slices.push(read.value);
  }
  if (problems.length) throw new ConfigError(problems);
  return assembleConfig(slices);
}

/** AppConfig from its slices (in any order: their fields do not overlap). */
export function assembleConfig(slices: readonly object[]): AppConfig {
  return Object.assign({}, ...slices) as AppConfig;
}

/** The part of an AppConfig one slice holds. */
export function sliceOf(config: AppConfig, slice: { readonly keys: readonly string[] }): Record<string, unknown> {
  const fields = config as unknown as Record<string, unknown>;
  return Object.fromEntries(slice.keys.map((key) => [key, fields[key]]));
}
