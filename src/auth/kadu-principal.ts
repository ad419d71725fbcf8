import type { McpPrincipal } from '@kobana/nest-mcp';
import type { Role } from './scopes.js';

/** The verified caller: what API handlers and tools see instead of the token. */
export interface KaduPrincipal extends McpPrincipal {
  /** The member's identity at the authorization server (the token's `sub`, an email in development). */
  readonly subject: string;
  /** Organisation slug, from the token only. */
  readonly org: string;
  readonly role: Role;
  /** The role and the roles it implies. */
  readonly roles: readonly Role[];
  readonly scopes: readonly string[];
  readonly clientId?: string;
  readonly clientName?: string;
}

/**
 * The one spelling of a member's key — `<organisation slug>:<subject>` — under which both doors
 * spend budgets, libs/mcp keeps approvals and nonces, and a task's status is addressed to its member.
 */
export const memberKey = (org: string, subject: string): string => `${org}:${subject}`;

export const principalKeyOf = (p: Pick<KaduPrincipal, 'org' | 'subject'>): string => memberKey(p.org, p.subject);
