import { resolve } from 'node:path';

/** Everything the app reads from its environment, resolved once. */
export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly publicBaseUrl: string;
  readonly databaseUrl?: string;
  readonly redisUrl?: string;
  readonly mcpStateKey?: string;
  /** Set with OAUTH_JWKS_URL for a real authorization server; absent means development tokens. */
  readonly oauthIssuer: string;
  readonly oauthJwksUrl?: string;
  readonly devTokens: boolean;
  /** The MCP endpoint's canonical URL: the only audience the MCP door accepts (RFC 8707). */
  readonly mcpAudience: string;
  /** The only audience the REST API accepts. */
  readonly apiAudience: string;
  readonly bodyLimit: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = integer(env.PORT, 3000, 'PORT');
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  new URL(publicBaseUrl); // fail fast on a malformed value
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const devTokens = !env.OAUTH_JWKS_URL;
  if (devTokens && nodeEnv === 'production' && env.ALLOW_DEV_TOKENS !== 'true') {
    throw new Error(
      'Refusing to start in production with development tokens: set OAUTH_ISSUER and OAUTH_JWKS_URL, or ALLOW_DEV_TOKENS=true',
    );
  }
  if (!devTokens && !env.OAUTH_ISSUER) throw new Error('OAUTH_JWKS_URL is set but OAUTH_ISSUER is not');
  return {
    env: nodeEnv,
    port,
    host: env.HOST ?? '127.0.0.1',
    dataDir: resolve(env.DATA_DIR ?? './data'),
    publicBaseUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    mcpStateKey: env.MCP_STATE_KEY || undefined,
    oauthIssuer: env.OAUTH_ISSUER ?? publicBaseUrl,
    oauthJwksUrl: env.OAUTH_JWKS_URL || undefined,
    devTokens,
    mcpAudience: env.MCP_AUDIENCE ?? `${publicBaseUrl}/mcp`,
    apiAudience: env.API_AUDIENCE ?? `${publicBaseUrl}/api/v1`,
    bodyLimit: 1_048_576,
  };
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be an integer port, got '${value}'`);
  return n;
}
