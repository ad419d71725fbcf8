/**
 * The verified caller, as the app's authentication guard put it on the request. The module never
 * sees the token: only this. `roles` lists every role the caller holds (an app with a role
 * hierarchy lists the implied ones too).
 */
export interface McpPrincipal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly roles?: readonly string[];
  readonly clientId?: string;
  /** The client's name as the token names it (e.g. from its registration), for pages and audit lines. */
  readonly clientName?: string;
  /** When the token expires (ms since the epoch): a `subscriptions/listen` stream ends then. */
  readonly expiresAt?: number;
  readonly [claim: string]: unknown;
}

export function isMcpPrincipal(value: unknown): value is McpPrincipal {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return typeof p.subject === 'string' && Array.isArray(p.scopes);
}
