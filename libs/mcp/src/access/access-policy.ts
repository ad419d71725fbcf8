import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';
import { McpConfig } from '../mcp-config.js';
import type { McpAccessRequirement } from '../mcp.options.js';

export type AccessDecision = 'allowed' | 'missing_scope' | 'hidden';

/**
 * The one authorization decision behind listing and calling tools, resources and prompts:
 * a target is usable when the token holds all its scopes, the principal holds one of its roles,
 * and the app's own predicate agrees. A missing scope can be stepped up (403 challenge); a role
 * or predicate refusal cannot, so the target is hidden as if it did not exist.
 */
@Injectable()
export class AccessPolicy {
  constructor(private readonly config: McpConfig) {}

  decide(principal: McpPrincipal | undefined, target: McpAccessRequirement): AccessDecision {
    if (target.roles.length > 0) {
      const held = principal?.roles ?? [];
      if (!target.roles.some((role) => held.includes(role))) return 'hidden';
    }
    const authorize = this.config.authorize;
    if (authorize && !authorize(principal, target)) return 'hidden';
    const scopes = principal?.scopes ?? [];
    if (!target.scopes.every((scope) => scopes.includes(scope))) return 'missing_scope';
    return 'allowed';
  }

  /**
   * A key for callers who see the same things. Without an app predicate, scopes and roles decide
   * everything, so they are the key; with one, nothing can be shared (undefined: do not cache).
   */
  visibilityKey(principal: McpPrincipal | undefined): string | undefined {
    if (this.config.authorize) return undefined;
    const scopes = [...(principal?.scopes ?? [])].sort().join(' ');
    const roles = [...(principal?.roles ?? [])].sort().join(' ');
    return `${scopes}|${roles}`;
  }
}
