import { checkHost } from '../common/address-policy.js';

/**
 * A webhook URL, refused at creation and again at each delivery after DNS resolution
 * (common/address-policy.ts); delivery then connects to the very address checked here.
 */
export type UrlCheck = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

export async function checkWebhookUrl(raw: string, allowLoopback: boolean): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: 'only http and https URLs are allowed' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const host = await checkHost(url.hostname, allowLoopback);
  return host.ok ? { ...host, url } : host;
}
