import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import bearer from 'passport-http-bearer';
import { ConnectionStandings } from './connection-standing.js';
import type { KaduPrincipal } from './kadu-principal.js';
import type { MembershipCheck } from './membership.js';
import { TokenVerifier } from './token-verifier.js';

// Default import: under vitest in an ESM project the CJS named export is lost (toolchain.md §4.4).
const { Strategy } = bearer;

const failures = new WeakMap<Request, string>();
/** Per connection, the standing its last known caller was admitted with (connection-standing.ts). */
const standings = new ConnectionStandings();

/** Why the token of this request was refused, for the challenge's error_description. */
export function authFailureOf(req: Request): string | undefined {
  return failures.get(req);
}

/**
 * Passport keeps strategies in a process-wide registry, so with two app instances in one process
 * (tests, blue/green) the last one registered would verify every app's tokens. Each app therefore
 * binds its own verifier and audiences to its Express instance, and the strategy reads them from
 * the request it is verifying.
 */
export interface AuthBinding {
  verifier: TokenVerifier;
  mcpAudience: string;
  apiAudience: string;
}

export function bindAuth(locals: Record<string, unknown>, binding: AuthBinding): void {
  locals.kaduAuth = binding;
}

/**
 * The member's current standing, applied after the token is verified. Bound by the Kadu domain
 * module, which provides it (AuthModule cannot import that module: it imports AuthModule); absent
 * in apps without the domain.
 */
export function bindMembership(locals: Record<string, unknown>, membership: MembershipCheck): void {
  locals.kaduMembership = membership;
}

function bindingOf(req: Request): AuthBinding {
  const binding = req.app.locals.kaduAuth as AuthBinding | undefined;
  if (!binding) throw new Error('authentication is not bound to this app');
  return binding;
}

async function verifyFor(door: 'mcp' | 'api', req: Request, token: string): Promise<KaduPrincipal | false> {
  const { verifier, mcpAudience, apiAudience } = bindingOf(req);
  const membership = req.app.locals.kaduMembership as MembershipCheck | undefined;
  const audience = door === 'mcp' ? mcpAudience : apiAudience;
  // passport-http-bearer also reads `access_token` from the query and body; a token there leaks into
  // logs and histories, so only the Authorization header counts (libs/mcp/docs/security.md).
  const header = req.headers.authorization ?? '';
  if (!/^bearer\s+/i.test(header) || header.replace(/^bearer\s+/i, '').trim() !== token) {
    failures.set(req, 'the token must be sent in the Authorization header');
    return false;
  }
  const result = await verifier.verify(token, audience, req.socket);
  if (result.ok) return membership ? membership.effective(result.principal, result.issuedAt) : result.principal;
  failures.set(req, result.reason);
  return false;
}

/**
 * The caller, when this connection's previous request already proved the same token for this door
 * and the member's standing is cached (TokenVerifier.recall, MembershipCheck.effectiveNow): the
 * door's guard then admits the request without running passport. Undefined whenever anything
 * would need a look (another token, a token passport would read elsewhere or refuse, an expired
 * or uncached verdict): the request then takes the strategy's path above, which decides as always.
 */
export function knownCaller(door: 'mcp' | 'api', req: Request): KaduPrincipal | undefined {
  const binding = req.app.locals.kaduAuth as AuthBinding | undefined;
  const header = req.headers.authorization;
  if (!binding || !header || !req.socket) return undefined;
  // What passport-http-bearer accepts without a second look: `Bearer <token>` (two parts, any case
  // of the scheme), and no access_token in the body or the query (which it would refuse as 400).
  const space = header.indexOf(' ');
  if (space !== 6 || header.indexOf(' ', space + 1) !== -1 || !/^bearer$/i.test(header.slice(0, 6))) return undefined;
  const token = header.slice(space + 1);
  if (token === '' || (req.body as { access_token?: unknown } | undefined)?.access_token || req.url.includes('?'))
    return undefined;
  // One clock reading for both memos: the token's verdict and the member's record are judged at one instant.
  const now = Date.now();
  const verdict = binding.verifier.recall(
    token,
    door === 'mcp' ? binding.mcpAudience : binding.apiAudience,
    req.socket,
    now,
  );
  if (!verdict) return undefined;
  const membership = req.app.locals.kaduMembership as MembershipCheck | undefined;
  if (!membership) return verdict.principal;
  if (!membership.standingNow) return membership.effectiveNow(verdict.principal, verdict.issuedAt);
  const kept = standings.recall(req.socket, verdict, membership, now);
  if (kept) return kept;
  const standing = membership.standingNow(verdict.principal, verdict.issuedAt, now);
  if (!standing) return undefined;
  standings.remember(req.socket, verdict, membership, standing);
  return standing.caller;
}

/** Tokens for the MCP door: audience = the MCP endpoint's canonical URL. */
@Injectable()
export class McpBearerStrategy extends PassportStrategy(Strategy, 'mcp-bearer') {
  constructor() {
    super({ passReqToCallback: true });
  }

  validate(req: Request, token: string): Promise<KaduPrincipal | false> {
    return verifyFor('mcp', req, token);
  }
}

/** Tokens for the REST door: audience = the API. A token stolen from one door does not open the other. */
@Injectable()
export class ApiBearerStrategy extends PassportStrategy(Strategy, 'api-bearer') {
  constructor() {
    super({ passReqToCallback: true });
  }

  validate(req: Request, token: string): Promise<KaduPrincipal | false> {
    return verifyFor('api', req, token);
  }
}
