import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard for every address this app connects to on someone else's say
 * (webhook URLs, the documents the development authorization server fetches). The address is
 * classified by `ipaddr.js` (every IANA special-purpose range): only ordinary unicast is allowed —
 * IPv4 outside private, shared, link-local (cloud metadata), reserved, documentation and
 * benchmarking space, IPv6 inside global unicast 2000::/3. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped) are judged by that IPv4 address; forms that tunnel to one (IPv4-compatible, 6to4,
 * NAT64, Teredo) are refused outright. Loopback only with an explicit setting (development,
 * tests). The caller then connects to the very address classified here (`pinnedLookup`), so a DNS
 * answer cannot change between the check and the connection.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

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

/** Whether a URL's host is a loopback address literal (127.0.0.0/8, ::1) or `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (isIP(host) !== 0 && classify(host) === 'loopback');
}

/** Every address a host name resolves to (the system resolver, as a connection would use). */
export type ResolveAll = (host: string) => Promise<LookupAddress[]>;

export const systemResolveAll: ResolveAll = (host) => lookup(host, { all: true });

export type AddressCheck = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Resolves the host once and classifies what it resolves to: allowed only when every address is
 * (a name that also points inside is refused), answering the address to connect to.
 */
export async function checkHost(
  hostname: string,
  allowLoopback: boolean,
  resolveAll: ResolveAll = systemResolveAll,
): Promise<AddressCheck> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolveAll(host);
    } catch {
      return { ok: false, reason: `the host ${host} does not resolve` };
    }
  }
  if (!addresses.length) return { ok: false, reason: `the host ${host} does not resolve` };
  const refused = addresses.find((a) => !isAddressAllowed(a.address, allowLoopback));
  if (refused) {
    const which = refused.address === host ? `the address ${host}` : `the address ${refused.address} of ${host}`;
    return { ok: false, reason: `${which} is private, loopback, link-local, reserved or an IPv4 tunnel` };
  }
  return { ok: true, address: addresses[0]!.address, family: addresses[0]!.family === 6 ? 6 : 4 };
}

type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/** A `lookup` for `http(s).request` that always answers the checked address: no second resolution. */
export function pinnedLookup(address: string, family: 4 | 6) {
  return (_host: string, options: { all?: boolean }, callback: LookupCallback): void => {
    // Node asks for `all` when it races address families (autoSelectFamily).
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
