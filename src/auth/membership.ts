import type { KaduPrincipal } from './kadu-principal.js';
import { impliedRoles, isRole, ROLES, type Role } from './scopes.js';

/**
 * Who the caller is in the organisation now, applied to what their token says: the Kadu domain
 * provides it (OrgContextService) and the bearer strategies apply it to every request, so that the
 * role a member was demoted to decides what they may list and call on both doors.
 */
export interface MembershipCheck {
  /** The principal as the member's current role allows it; `issuedAt` is the token's `iat` (seconds). */
  effective(principal: KaduPrincipal, issuedAt: number | undefined): Promise<KaduPrincipal>;
  /**
   * The same answer when it is known without waiting (the member's record is cached), else
   * undefined and `effective` must be asked: a cached request then creates no promise.
   */
  effectiveNow(principal: KaduPrincipal, issuedAt: number | undefined): KaduPrincipal | undefined;
  /**
   * effectiveNow's answer at `now` (a clock reading), with the means to tell later whether it still
   * holds: a connection's next request reuses it (known-callers.ts) only while the member's cached
   * record is the very one it came from and unexpired — any change forgets that record at once.
   */
  standingNow?(principal: KaduPrincipal, issuedAt: number | undefined, now: number): Standing | undefined;
}

/** The caller a cached member record made of a principal, and whether that record still stands. */
export interface Standing {
  readonly caller: KaduPrincipal;
  /** True while effectiveNow would answer `caller` from the same record at `now`. */
  holds(now: number): boolean;
}

export const MEMBERSHIP = Symbol('MEMBERSHIP');

/** What the member's stored record says about their role. */
export interface StoredRole {
  readonly role: string;
  /** When the role was last changed through Kadu (ms since the epoch), or undefined if never. */
  readonly changedAt: number | undefined;
}

/**
 * A role changed in Kadu after the token was issued caps the token's role (a demotion takes effect
 * at once; a promotion waits for a new token, since a token never carries more than it was issued
 * with). A token issued after the change is the authorization server's newer word and stands.
 * Without `iat` the change is assumed newer.
 */
export function capToStoredRole(
  principal: KaduPrincipal,
  stored: StoredRole | undefined,
  issuedAt: number | undefined,
): KaduPrincipal {
  if (!stored || stored.changedAt === undefined || !isRole(stored.role)) return principal;
  // iat has one-second resolution: a change within the token's second counts as after it.
  if (issuedAt !== undefined && stored.changedAt < issuedAt * 1000) return principal;
  if (ROLES.indexOf(stored.role) >= ROLES.indexOf(principal.role)) return principal;
  // Scopes stay as granted: the roles decide, so a demoted member is told the role is missing
  // (403 forbidden, an unknown tool over MCP) rather than invited to step up a scope (security.md).
  const role: Role = stored.role;
  return { ...principal, role, roles: impliedRoles(role) };
}
