import type { errors as ProviderErrors } from 'oidc-provider';
import { isLoopbackHost } from '../common/address-policy.js';

/**
 * Schemes a browser acts on itself, or that are not an app's: never a redirect target. Any other
 * non-web scheme is an app's private-use scheme (RFC 8252 §7.1: `com.example.app:/callback`,
 * also the single-label `cursor:`, `vscode:` that MCP hosts register).
 */
const NOT_AN_APP = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'filesystem:',
  'about:',
  'view-source:',
  'ws:',
  'wss:',
  'ftp:',
  'mailto:',
  'tel:',
  'sms:',
]);

/** Why a redirect URI is refused, or undefined when it is allowed. */
export function redirectUriProblem(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (!url) return undefined; // not a URI at all: the provider's own validation says so
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return isLoopbackHost(url.hostname)
      ? undefined
      : `redirect_uris must use https, or http only on a loopback address (localhost, 127.0.0.1, [::1]): ${uri.slice(0, 200)}`;
  if (NOT_AN_APP.has(url.protocol)) return `redirect_uris must not use the ${url.protocol.slice(0, -1)} scheme`;
  return undefined;
}

/**
 * The redirect URIs OAuth 2.1 and the MCP authorization spec allow, whatever the client's
 * `application_type`: https; http on loopback only (RFC 8252 §7.3, any port); a native app's
 * private-use scheme (§7.1; clients are `native` unless they say `web`, whose redirects
 * oidc-provider then keeps to http(s)). oidc-provider alone lets a `web` client register plain
 * http to any host. Installed as the `extraClientMetadata` validator of `redirect_uris`, so it
 * holds for registrations, Client ID Metadata Documents and stored clients alike.
 */
export function redirectUriValidator(errors: typeof ProviderErrors) {
  return (_ctx: unknown, key: string, value: unknown): void => {
    if (key !== 'redirect_uris' || !Array.isArray(value)) return;
    for (const uri of value) {
      const problem = typeof uri === 'string' ? redirectUriProblem(uri) : undefined;
      // "redirect_uris…" descriptions make oidc-provider answer `invalid_redirect_uri` (RFC 7591 §3.2.2).
      if (problem) throw new errors.InvalidClientMetadata(problem);
    }
  };
}
