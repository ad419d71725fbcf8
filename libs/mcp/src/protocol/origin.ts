const LOCAL_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Rung 1 (DNS-rebinding defence): a present Origin must be the server's own public origin, a
 * localhost origin on any port, or one the adopter allowed explicitly. No Origin (a non-browser
 * client) is allowed; the opaque origin `null` is not.
 */
export function isOriginAllowed(
  origin: string,
  publicOrigin: string | undefined,
  allowed: readonly string[] = [],
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (LOCAL_HOSTNAMES.has(url.hostname)) return true;
  if (publicOrigin !== undefined && url.origin === publicOrigin) return true;
  return allowed.some((entry) => entry === url.origin);
}

/** `application/json` with any parameters (charset…); type and subtype compared case-insensitively. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  // What clients send, answered without splitting and lower-casing a copy on every call.
  if (contentType === 'application/json') return true;
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json';
}
