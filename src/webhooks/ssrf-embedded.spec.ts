import { isAddressAllowed } from '../common/address-policy.js';
import { checkWebhookUrl } from './ssrf.js';

/** Issue 13: IPv6 forms that embed or tunnel to IPv4, and every special-purpose range. */
describe('SSRF: addresses that embed IPv4 and special-purpose ranges', () => {
  it.each([
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2002:5db8:d822::1', '6to4 even of a public address'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['::ffff:0:7f00:1', 'SIIT (RFC 6145)'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (2024)'],
    ['fec0::1', 'deprecated site-local'],
    ['5f00::1', 'segment routing'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'benchmarking'],
  ])('refuses %s (%s), even with loopback allowed', (address) => {
    expect(isAddressAllowed(address, true)).toBe(false);
  });

  it('judges an IPv4-mapped address by its IPv4 address', () => {
    expect(isAddressAllowed('::ffff:93.184.216.34', false)).toBe(true);
    expect(isAddressAllowed('::ffff:127.0.0.1', true)).toBe(true);
    expect(isAddressAllowed('::ffff:127.0.0.1', false)).toBe(false);
    // ::127.0.0.1 (IPv4-compatible form) is the same loopback: refused unless loopback is allowed.
    expect(isAddressAllowed('::127.0.0.1', false)).toBe(false);
    expect(isAddressAllowed('::7f00:1', false)).toBe(false);
  });

  it.each([
    'http://[::127.0.0.1]/',
    'http://[2002:7f00:1::1]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[::ffff:a9fe:a9fe]/',
  ])('refuses the URL %s at creation and at delivery (one check serves both)', async (url) => {
    expect(await checkWebhookUrl(url, false)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/private, loopback, link-local, reserved or an IPv4 tunnel/),
    });
  });

  it('keeps ordinary public addresses', async () => {
    expect(await checkWebhookUrl('https://[2606:4700:4700::1111]/hook', false)).toMatchObject({ ok: true, family: 6 });
    expect(await checkWebhookUrl('https://93.184.216.34/hook', false)).toMatchObject({ ok: true, family: 4 });
  });
});
