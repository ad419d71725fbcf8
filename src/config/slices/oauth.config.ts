import { budget, count, flag, oneOf, type RateBudget, withRule } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';
import { nodeEnvOf } from './runtime.config.js';

type DevServerSetting = 'auto' | 'on' | 'off';

/**
 * The development authorization server signs with the development key, so it needs development
 * tokens; and it never runs in production unless explicitly allowed.
 */
const devServerRule = (raw: string | undefined, env: NodeJS.ProcessEnv): string | undefined => {
  if (raw !== 'on') return undefined;
  if (env.OAUTH_JWKS_URL)
    return 'OAUTH_DEV_SERVER=on needs development tokens: it signs with the development key, which OAUTH_JWKS_URL turns off';
  if (nodeEnvOf(env) === 'production' && env.ALLOW_DEV_AUTHORIZATION_SERVER !== 'true')
    return 'Refusing to start in production with the development authorization server: set ALLOW_DEV_AUTHORIZATION_SERVER=true to allow it, or OAUTH_DEV_SERVER=off';
  return undefined;
};

const devServer = withRule(
  oneOf<DevServerSetting>(['auto', 'on', 'off'], (got) => `OAUTH_DEV_SERVER must be on, off or auto, got '${got}'`),
  devServerRule,
);

class OauthEnv {
  @Env(devServer, {
    default: 'auto',
    meaning:
      'the development authorization server in the app (`/oauth`, sign-in at `/sign-in/…`): `auto` = on with development tokens outside production; `on`; `off`',
  })
  OAUTH_DEV_SERVER!: DevServerSetting;

  @Env(flag, {
    default: 'false',
    meaning: 'with `NODE_ENV=production`, `OAUTH_DEV_SERVER=on` is refused at start unless this is `true`',
  })
  ALLOW_DEV_AUTHORIZATION_SERVER!: boolean;

  @Env(flag, {
    default: 'false',
    meaning:
      'let the development authorization server fetch the documents clients point it to (Client ID Metadata Documents, `sector_identifier_uri`, `jwks_uri`) from loopback addresses (tests); private, link-local and metadata addresses are refused even then, before any connection',
  })
  OAUTH_DEV_CIMD_ALLOW_LOOPBACK!: boolean;

  @Env(budget, {
    default: '20/600',
    meaning: 'client registrations (RFC 7591) one client address may make; more → 429 + `Retry-After`',
  })
  OAUTH_DEV_REGISTRATION_RATE!: RateBudget;

  @Env(count, {
    default: '1000',
    meaning:
      "clients the development authorization server registers within a client's lifetime (14 days), all addresses together; more → 429 + `Retry-After`",
  })
  OAUTH_DEV_MAX_CLIENTS!: number;
}

export interface OauthConfig {
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
  readonly devRegistrationRate: RateBudget;
  /** Clients the development authorization server registers per 14 days, all addresses (OAUTH_DEV_MAX_CLIENTS, default 1000). */
  readonly devMaxClients: number;
}

export const oauthConfig = defineSlice(
  'oauth',
  OauthEnv,
  ['devAuthServer', 'devCimdAllowLoopback', 'devRegistrationRate', 'devMaxClients'],
  (values, env): OauthConfig => ({
    devAuthServer:
      values.OAUTH_DEV_SERVER === 'on' ||
      (values.OAUTH_DEV_SERVER === 'auto' && !env.OAUTH_JWKS_URL && nodeEnvOf(env) !== 'production'),
    devCimdAllowLoopback: values.OAUTH_DEV_CIMD_ALLOW_LOOPBACK,
    devRegistrationRate: values.OAUTH_DEV_REGISTRATION_RATE,
    devMaxClients: values.OAUTH_DEV_MAX_CLIENTS,
  }),
);
