import { hash } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { createLocalJWKSet, createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { BoundedTtlCache } from '../common/bounded-ttl-cache.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionVerdicts } from './connection-verdict.js';
import { loadOrCreateDevKey } from './dev-signing-key.js';
import type { KaduPrincipal } from './kadu-principal.js';
import { impliedRoles, isRole, scopesForRole } from './scopes.js';
import { describeValue } from '@kobana/nest-mcp';

/** `issuedAt`: the token's `iat` in seconds, when it has one (a role changed after it caps the token's role). */
export type Verification = { ok: true; principal: KaduPrincipal; issuedAt?: number } | { ok: false; reason: string };

/**
 * Verified tokens are kept this long at most (and never past their `exp`): long enough that a
 * client's burst of calls verifies its token once, short enough to bound how long a cached
 * verdict outlives anything else (a refreshed key set that withdraws a key clears the cache at once).
 */
export const VERIFIED_TOKEN_MAX_AGE_MS = 60_000;
/** Distinct tokens kept per process; beyond it the oldest is verified again on its next use. */
export const VERIFIED_TOKEN_MAX_ENTRIES = 10_000;

/**
 * The authorization server's key set could not be had (down, slow, answering garbage): the token
 * may well be valid, so the request is answered 503 + Retry-After, not 401 (which would send the
 * client back to log in).
 */
export class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the authorization server's keys cannot be fetched (${describeValue(cause)})`);
    this.name = 'KeySetUnavailable';
  }
}

type KeySet = Parameters<typeof jwtVerify>[1];

/**
 * Verifies access tokens (JWT) against the authorization server's JWKS — or the development key —
 * checking signature, exp (exactly: refused from the second it names), nbf/iat (30 s skew), issuer
 * and the audience of the door being used.
 *
 * A verified token is cached per process under the SHA-256 of audience and token (the token itself
 * is never kept as a key), until its `exp` or VERIFIED_TOKEN_MAX_AGE_MS, whichever comes first:
 * an ES256 verification through WebCrypto was the largest cost of a Kadu request. Refusals are not
 * cached. The cache holds what the token says; who the member is now is checked per request
 * (OrgContextService, its own short cache).
 */
@Injectable()
export class TokenVerifier implements OnModuleInit {
  private keys!: KeySet;
  private publicJwks: { keys: object[] } = { keys: [] };
  private keySetFingerprint = '';
  private readonly verified = new BoundedTtlCache<{ verdict: Verification & { ok: true }; until: number }>(
    VERIFIED_TOKEN_MAX_ENTRIES,
  );
  /** The last verdict per kept-alive connection (connection-verdict.ts): a repeated token skips the hash. */
  private readonly connections = new ConnectionVerdicts();
  /** Moves whenever the key set changes (and the cache is cleared): a verdict of an earlier generation is not recalled. */
  private generation = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async onModuleInit(): Promise<void> {
    if (this.config.devTokens) {
      const key = await loadOrCreateDevKey(this.config);
      this.publicJwks = { keys: [key.publicJwk] };
      this.keys = createLocalJWKSet(this.publicJwks as Parameters<typeof createLocalJWKSet>[0]) as KeySet;
    } else {
      const remote = createRemoteJWKSet(new URL(this.config.oauthJwksUrl as string), {
        timeoutDuration: this.config.oauthJwksTimeoutMs,
      });
      this.keys = (async (header: Parameters<typeof remote>[0], token: Parameters<typeof remote>[1]) => {
        try {
          return await remote(header, token);
        } catch (error) {
          // No key for this token is the token's problem; anything else is the key server's.
          if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
            throw error;
          throw new KeySetUnavailable(error);
        } finally {
          this.noteKeySet(remote.jwks());
        }
      }) as KeySet;
    }
  }

  /**
   * Runs after every fresh verification against the remote key set: when jose has fetched a key
   * set that differs from the last one seen (a key added or withdrawn), every cached token is
   * verified afresh on its next use, so a withdrawn key stops opening the door as soon as the key
   * set is refreshed — not up to VERIFIED_TOKEN_MAX_AGE_MS later.
   */
  private noteKeySet(set: { keys?: object[] } | undefined): void {
    const fingerprint = JSON.stringify(set?.keys ?? []);
    if (fingerprint === this.keySetFingerprint) return;
    this.keySetFingerprint = fingerprint;
    this.generation++;
    this.verified.clear();
  }

  /** The development JWKS, published so that other tools can verify local tokens. */
  jwks(): { keys: object[] } {
    return this.publicJwks;
  }

  /**
   * The verdict on a token; throws KeySetUnavailable when the keys to judge it cannot be had.
   * `connection` (the request's socket) lets a verdict be recalled there on the next request.
   */
  async verify(token: string, audience: string, connection?: object): Promise<Verification> {
    const recalled = connection && this.recall(token, audience, connection);
    if (recalled) return recalled;
    // One-shot hashing: a fifth of the cost of a Hash object for a token-sized input.
    const key = hash('sha256', `${audience}\n${token}`, 'base64');
    // The verdict itself is kept (read-only), so a cached request allocates nothing for it.
    const cached = this.verified.get(key);
    if (cached) {
      if (connection)
        this.connections.remember(connection, token, audience, cached.verdict, cached.until, this.generation);
      return cached.verdict;
    }
    const verdict = await this.verifyAfresh(token, audience);
    if (!verdict.ok) return verdict;
    const verified: Verification & { ok: true } = {
      ok: true,
      principal: verdict.principal,
      ...(verdict.issuedAt !== undefined ? { issuedAt: verdict.issuedAt } : {}),
    };
    if (verdict.expiresAt !== undefined) {
      const until = Math.min(verdict.expiresAt, Date.now() + VERIFIED_TOKEN_MAX_AGE_MS);
      this.verified.set(key, { verdict: verified, until }, until);
      // After the verification: a key set it fetched has already moved the generation.
      if (connection) this.connections.remember(connection, token, audience, verified, until, this.generation);
    }
    return verified;
  }

  /**
   * The verdict this connection's last request earned with the same token and audience, without
   * hashing or waiting: held no longer than the cache above would hold it, and never across a
   * change of the key set. Undefined when there is none: verify() then decides.
   */
  recall(
    token: string,
    audience: string,
    connection: object,
    now = Date.now(),
  ): (Verification & { ok: true }) | undefined {
    return this.connections.recall(connection, token, audience, this.generation, now);
  }

  private async verifyAfresh(token: string, audience: string): Promise<Verification & { expiresAt?: number }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.oauthIssuer,
        audience,
        clockTolerance: 30,
        algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      }));
    } catch (error) {
      if (error instanceof KeySetUnavailable) throw error;
      return { ok: false, reason: describe(error) };
    }
    // The skew above is for nbf and iat; `exp` holds to the second, so that the cache (which never
    // serves a token past its exp) and a fresh verification agree (RFC 7519 §4.1.4: "on or after").
    const expiresAt = typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
    if (expiresAt !== undefined && Date.now() >= expiresAt) return { ok: false, reason: 'the token has expired' };
    const verdict = toPrincipal(payload);
    if (!verdict.ok) return verdict;
    return {
      ...verdict,
      ...(typeof payload.iat === 'number' ? { issuedAt: payload.iat } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
  }
}

function toPrincipal(payload: JWTPayload): Verification {
  const {
    sub,
    org,
    role,
    scope,
    exp,
    client_id: clientId,
    client_name: clientName,
  } = payload as JWTPayload & Record<string, unknown>;
  if (typeof sub !== 'string' || sub === '') return { ok: false, reason: 'the token has no subject' };
  if (typeof org !== 'string' || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(org))
    return { ok: false, reason: 'the token names no valid organisation' };
  if (!isRole(role)) return { ok: false, reason: 'the token names no valid role' };
  const granted = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
  // A token never carries more than its role allows.
  const allowed = new Set(scopesForRole(role));
  const principal: KaduPrincipal = {
    subject: sub,
    org,
    role,
    roles: impliedRoles(role),
    scopes: granted.filter((s) => allowed.has(s)),
    ...(typeof clientId === 'string' ? { clientId } : {}),
    // A subscriptions/listen stream ends when the token does (the client listens again with a fresh one).
    ...(typeof exp === 'number' ? { expiresAt: exp * 1000 } : {}),
    // The client's own name, as the development authorization server (or a real one) put it in the token.
    ...(typeof clientName === 'string' && clientName !== '' ? { clientName: clientName.slice(0, 200) } : {}),
  };
  return { ok: true, principal };
}

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token was not issued for this resource (audience)';
    if (error.claim === 'iss') return 'the token was not issued by the expected authorization server';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token's ${error.claim} claim is invalid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return 'the token signature is not valid';
  }
  return 'the token is malformed or cannot be verified';
}
