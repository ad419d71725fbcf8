import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Server-side request forgery guard for webhook URLs: private, link-local, metadata, multicast and
 * reserved addresses are refused at creation and again at delivery after DNS resolution; loopback
 * only with an explicit setting (development, tests). Delivery then connects to the very address
 * checked here, so a DNS answer cannot change between check and connect.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) blocked.addSubnet(net, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export type UrlCheck = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

export function isAddressAllowed(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const mapped = family === 6 && /^::ffff:/i.test(address) ? address.replace(/^::ffff:/i, '') : undefined;
  if (mapped && isIP(mapped) === 4) return isAddressAllowed(mapped, allowLoopback);
  if (loopback.check(address, type)) return allowLoopback;
  return !blocked.check(address, type);
}

export async function checkWebhookUrl(raw: string, allowLoopback: boolean): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'only http and https URLs are allowed' };
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
  if (!isAddressAllowed(address, allowLoopback)) return { ok: false, reason: `the address ${address} is private, loopback, link-local or reserved` };
  return { ok: true, url, address, family: family as 4 | 6 };
}
