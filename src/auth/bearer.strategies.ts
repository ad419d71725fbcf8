import type { Request } from 'express';
import bearer from 'passport-http-bearer';
import type { KaduPrincipal } from './kadu-principal.js';
import type { MembershipCheck } from './membership.js';
import { TokenVerifier } from './token-verifier.js';

// Default import: under vitest in an ESM project the CJS named export is lost (toolchain.md §4.4).
const { Strategy } = bearer;

const failures = new WeakMap<Request, string>();

/** Why the token of this request was refused, for the challenge's error_description. */
export function authFailureOf(req: Request): string | undefined {
  return failures.get(req);
}

/**
 * One strategy instance per door serves every app in the process (tests, blue/green): each app
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
  const result = await verifier.verify(token, audience);
  if (result.ok) return membership ? membership.effective(result.principal, result.issuedAt) : result.principal;
  failures.set(req, result.reason);
  return false;
}

/** What the strategy concluded: a principal, a refusal (`false`), or an error (keys or database away). */
export type BearerOutcome = { user: KaduPrincipal | false; error?: undefined } | { user?: undefined; error: unknown };

type Door = 'mcp' | 'api';

/**
 * One passport-http-bearer strategy per door (the audiences are read from the request's app, so
 * one instance serves every app in the process). The guards call it directly, as passport's
 * `authenticate` would, without passport's per-request middleware (a closure per request, the
 * session helpers added to every request, Nest's options merging): same token extraction, same
 * verdicts, a fifth of the authentication's cost.
 */
const strategies: Record<Door, BearerStrategy> = {
  mcp: strategyFor('mcp'),
  api: strategyFor('api'),
};

type BearerStrategy = InstanceType<typeof Strategy> & { authenticate(req: Request): void };
type Attempt = BearerStrategy & {
  success(user: KaduPrincipal): void;
  fail(): void;
  error(error: unknown): void;
};

function strategyFor(door: Door): BearerStrategy {
  return new Strategy(
    { passReqToCallback: true },
    (req: Request, token: string, done: (error: unknown, user?: KaduPrincipal | false) => void) => {
      verifyFor(door, req, token).then(
        (user) => done(null, user),
        (error: unknown) => done(error),
      );
    },
  ) as BearerStrategy;
}

/** Runs the door's strategy on this request (the strategy's success, fail and error as passport binds them). */
export function authenticateBearer(door: Door, req: Request): Promise<BearerOutcome> {
  return new Promise((resolve) => {
    const attempt = Object.create(strategies[door]) as Attempt;
    attempt.success = (user) => resolve({ user });
    attempt.fail = () => resolve({ user: false });
    attempt.error = (error) => resolve({ error });
    attempt.authenticate(req);
  });
}
