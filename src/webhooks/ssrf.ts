import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard for webhook URLs, refused at creation and again at delivery
 * after DNS resolution. The address is classified by `ipaddr.js` (every IANA special-purpose
 * range): only ordinary unicast is allowed — IPv4 outside private, shared, link-local,
 * reserved, documentation and benchmarking space, IPv6 inside global unicast 2000::/3. IPv6
 * forms that carry an IPv4 address (IPv4-mapped) are judged by that IPv4 address; forms that
 * tunnel to one (IPv4-compatible, 6to4, NAT64, Teredo) are refused outright. Loopback only with an
 * explicit setting (development, tests). Delivery then connects to the very address checked
 * here, so a DNS answer cannot change between check and connect.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

export type UrlCheck = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

type AddressClass = 'public' | 'loopback' | 'refused';

function classify(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return 'refused';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else {
      const range = v6.range();
      if (range === 'loopback') return 'loopback';
      return range === 'unicast' && v6.match(GLOBAL_UNICAST_V6) ? 'public' : 'refused';
    }
  }
  const range = ip.range();
  if (range === 'loopback') return 'loopback';
  return range === 'unicast' ? 'public' : 'refused';
}

export function isAddressAllowed(address: string, allowLoopback: boolean): boolean {
  const verdict = classify(address);
  return verdict === 'public' || (verdict === 'loopback' && allowLoopback);
}

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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let address = host;
  let family = isIP(host);
  if (family === 0) {
    try {
      const resolved = await lookup(host);
      address = resolved.address;
      family = resolved.family;
    } catch {
      return { ok: false, reason: `the host ${host} does not resolve` };
    }
  }
  if (!isAddressAllowed(address, allowLoopback))
    return { ok: false, reason: `the address ${address} is private, loopback, link-local, reserved or an IPv4 tunnel` };
  return { ok: true, url, address, family: family as 4 | 6 };
}
