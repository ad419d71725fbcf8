import { resolve } from 'node:path';
import { flag, nonNegative, prefix, text, withRule } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';
import { publicBaseUrlOf } from './http.config.js';

const jwksUrl = withRule(text, (raw, env) =>
  raw && !env.OAUTH_ISSUER ? 'OAUTH_JWKS_URL is set but OAUTH_ISSUER is not' : undefined,
);

class AuthEnv {
  @Env(prefix, { defaultText: '`PUBLIC_BASE_URL`', allowed: 'text', meaning: 'expected `iss` of access tokens' })
  OAUTH_ISSUER?: string;

  @Env(jwksUrl, {
    allowed: 'URL (needs `OAUTH_ISSUER`)',
    meaning: 'JWKS of the real authorization server; absent = development tokens',
  })
  OAUTH_JWKS_URL?: string;

  @Env(nonNegative, {
    default: '5000',
    meaning:
      'how long (ms) a fetch of that JWKS may take; a key server that is down, slow or answering garbage makes requests answer 503 + `Retry-After: 5` (the token may be fine), not 401',
  })
  OAUTH_JWKS_TIMEOUT_MS!: number;

  @Env(flag, {
    default: 'false',
    meaning: 'with `NODE_ENV=production`, development tokens are refused at start unless this is `true`',
  })
  ALLOW_DEV_TOKENS!: boolean;

  @Env(text, {
    allowed: 'private EC P-256 JWK',
    meaning:
      "the development tokens' signing key given explicitly, such as a data folder's `dev-signing-key.json`; without it (or `DEV_SIGNING_KEY_FILE`) each data folder makes its own, so give every replica the same key ([replicas](replicas.md#running-several-replicas)); start-up refuses development tokens with `DATABASE_URL` or `REDIS_URL` without one",
  })
  DEV_SIGNING_KEY?: string;

  @Env(text, { allowed: 'file path', meaning: 'a file holding that key, e.g. on a volume every replica mounts' })
  DEV_SIGNING_KEY_FILE?: string;

  @Env(prefix, { defaultText: '`<PUBLIC_BASE_URL>/mcp`', allowed: 'URL', meaning: 'override the MCP audience' })
  MCP_AUDIENCE?: string;

  @Env(prefix, { defaultText: '`<PUBLIC_BASE_URL>/api/v1`', allowed: 'URL', meaning: 'override the REST API audience' })
  API_AUDIENCE?: string;
}

export interface AuthConfig {
  /** Set with OAUTH_JWKS_URL for a real authorization server; absent means development tokens. */
  readonly oauthIssuer: string;
  readonly oauthJwksUrl?: string;
  /** How long a fetch of the JWKS may take before requests answer 503 (OAUTH_JWKS_TIMEOUT_MS, default 5 s). */
  readonly oauthJwksTimeoutMs: number;
  readonly devTokens: boolean;
  /** The MCP endpoint's canonical URL: the only audience the MCP door accepts (RFC 8707). */
  readonly mcpAudience: string;
  /** The only audience the REST API accepts. */
  readonly apiAudience: string;
  /** The development signing key given explicitly (DEV_SIGNING_KEY: a private JWK), shared by replicas. */
  readonly devSigningKey?: string;
  /** A file holding that key (DEV_SIGNING_KEY_FILE), e.g. on a volume every replica mounts. */
  readonly devSigningKeyFile?: string;
}

export const authConfig = defineSlice(
  'auth',
  AuthEnv,
  [
    'oauthIssuer',
    'oauthJwksUrl',
    'oauthJwksTimeoutMs',
    'devTokens',
    'mcpAudience',
    'apiAudience',
    'devSigningKey',
    'devSigningKeyFile',
  ],
  (values, env): AuthConfig => {
    const base = publicBaseUrlOf(env);
    return {
      oauthIssuer: values.OAUTH_ISSUER ?? base,
      oauthJwksUrl: values.OAUTH_JWKS_URL,
      oauthJwksTimeoutMs: values.OAUTH_JWKS_TIMEOUT_MS,
      devTokens: !values.OAUTH_JWKS_URL,
      mcpAudience: values.MCP_AUDIENCE ?? `${base}/mcp`,
      apiAudience: values.API_AUDIENCE ?? `${base}/api/v1`,
      devSigningKey: values.DEV_SIGNING_KEY,
      devSigningKeyFile: values.DEV_SIGNING_KEY_FILE ? resolve(values.DEV_SIGNING_KEY_FILE) : undefined,
    };
  },
);
