import { SignJWT } from 'jose';
import type { AppConfig } from '../config/app-config.js';
import { DEV_KEY_ALG, loadOrCreateDevKey } from './dev-signing-key.js';
import { type Role, scopesForRole } from './scopes.js';

export interface DevTokenRequest {
  org: string;
  user: string;
  role: Role;
  /** Default: every scope the role allows. */
  scopes?: string[];
  ttlSeconds?: number;
  audience?: 'mcp' | 'api';
  clientId?: string;
}

/** Signs a development access token for the local app (development-token mode only). */
export async function issueDevToken(config: AppConfig, request: DevTokenRequest): Promise<string> {
  if (!config.devTokens)
    throw new Error('development tokens are off: an authorization server is configured (OAUTH_JWKS_URL)');
  const key = await loadOrCreateDevKey(config);
  const scopes = request.scopes ?? scopesForRole(request.role);
  return new SignJWT({
    org: request.org,
    role: request.role,
    scope: scopes.join(' '),
    client_id: request.clientId ?? 'kadu-dev-cli',
  })
    .setProtectedHeader({ alg: DEV_KEY_ALG, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(config.oauthIssuer)
    .setSubject(request.user)
    .setAudience(request.audience === 'api' ? config.apiAudience : config.mcpAudience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (request.ttlSeconds ?? 3600))
    .sign(key.privateKey);
}
