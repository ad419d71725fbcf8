import type { McpStateStore } from '@kobana/nest-mcp';
import type { Configuration, errors as ProviderErrors, JWK, KoaContextWithOIDC } from 'oidc-provider';
import { ALL_SCOPES, scopesForRole } from '../auth/scopes.js';
import type { AppConfig } from '../config/app-config.js';
import { parseAccountId } from './dev-account.js';
import { documentFetch, MAX_CLIENT_METADATA_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES } from './document-fetch.js';
import { redirectUriValidator } from './redirect-uri-policy.js';
import { stateAdapter } from './state-adapter.js';

export interface ProviderSetup {
  config: AppConfig;
  store: McpStateStore;
  /** The development signing key as a private JWK: the embedded verifier already trusts it. */
  signingKey: JWK;
  /** Signs the provider's cookies; derived from the state key every replica shares. */
  cookieKey: string;
  errors: typeof ProviderErrors;
  renderError: NonNullable<Configuration['renderError']>;
  /** Told of every document URL refused before a connection (its address), for the log. */
  onFetchRefused: (url: string, reason: string) => void;
}

export const INTERACTION_PATH = '/sign-in';

/**
 * oidc-provider, configured as a development authorization server for MCP clients: authorization
 * code with PKCE (S256) only, open dynamic registration (RFC 7591) and Client ID Metadata
 * Documents for public clients, resource indicators (RFC 8707) that bind each access token to
 * exactly one of Kadu's two audiences, JWT access tokens with the claims `npm run token` puts in
 * its tokens (sub, org, role, scope) plus the client's id and name, refresh tokens, and our own
 * sign-in and consent page.
 */
export function providerConfiguration(setup: ProviderSetup): Configuration {
  const { config, errors } = setup;
  const audiences = new Set([config.mcpAudience, config.apiAudience]);
  return {
    adapter: stateAdapter(setup.store, { invalidGrant: (description) => new errors.InvalidGrant(description) }),
    jwks: { keys: [setup.signingKey] },
    cookies: { keys: [setup.cookieKey] },
    clientDefaults: {
      // MCP clients are mostly native apps (a loopback or private-use-scheme redirect, RFC 8252)
      // and rarely say so; a web client's https redirect is a native one's claimed https URI.
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Kadu's scopes are also the provider's own, so clients may name them when they register.
    scopes: ['openid', 'offline_access', ...ALL_SCOPES],
    enabledJWA: { idTokenSigningAlgValues: ['ES256'], userinfoSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets the MCP endpoint's audience, as `npm run token` does.
        defaultResource: () => config.mcpAudience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          if (!audiences.has(resource))
            throw new errors.InvalidTarget(`this server issues tokens for ${[...audiences].join(' and ')} only`);
          return {
            scope: ALL_SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: 3600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    ttl: {
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
      IdToken: 3600,
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    findAccount: (_ctx, id) => (parseAccountId(id) ? { accountId: id, claims: () => ({ sub: id }) } : undefined),
    formats: {
      customizers: {
        // The claims of an `npm run token` token: the person as `sub`, the organisation, the role,
        // and no scope the role does not allow; plus the client's name for pages and audit lines.
        jwt: (_ctx, token, jwt) => {
          const account = 'accountId' in token && token.accountId ? parseAccountId(token.accountId) : undefined;
          if (account) {
            const allowed = new Set(scopesForRole(account.role));
            Object.assign(jwt.payload, { sub: account.user, org: account.org, role: account.role });
            if (typeof jwt.payload.scope === 'string')
              jwt.payload.scope = jwt.payload.scope
                .split(' ')
                .filter((s: string) => allowed.has(s))
                .join(' ');
          }
          const name = token.client?.clientName;
          if (typeof name === 'string' && name) jwt.payload.client_name = name;
        },
      },
    },
    renderError: setup.renderError,
    // https only, classified before connecting (public addresses; loopback only with
    // OAUTH_DEV_CIMD_ALLOW_LOOPBACK, for tests), capped in size and time (document-fetch.ts).
    fetch: documentFetch({ allowLoopback: config.devCimdAllowLoopback, onRefused: setup.onFetchRefused }),
    fetchResponseBodyLimits: {
      'client_id metadata document': MAX_CLIENT_METADATA_DOCUMENT_BYTES,
      jwks_uri: MAX_DOCUMENT_BYTES,
      sector_identifier_uri: MAX_DOCUMENT_BYTES,
    },
    // https, loopback http or a native app's scheme, for every client however it came (redirect-uri-policy.ts).
    extraClientMetadata: { properties: ['redirect_uris'], validator: redirectUriValidator(errors) },
  };
}
