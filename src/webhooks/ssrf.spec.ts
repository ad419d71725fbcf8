import { isAddressAllowed } from '../common/address-policy.js';
import { checkWebhookUrl } from './ssrf.js';

describe('SSRF address policy', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '192.168.0.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    'fc00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::',
  ])('refuses %s', (address) => expect(isAddressAllowed(address, true)).toBe(false));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])('allows public %s', (address) =>
    expect(isAddressAllowed(address, false)).toBe(true),
  );

  it('allows loopback only when configured', () => {
    expect(isAddressAllowed('127.0.0.1', false)).toBe(false);
    expect(isAddressAllowed('::1', false)).toBe(false);
    expect(isAddressAllowed('127.0.0.1', true)).toBe(true);
  });

  it('resolves names before deciding and refuses what does not resolve', async () => {
    expect(await checkWebhookUrl('http://localhost:9/x', false)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://localhost:9/x', true)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('http://user:pw@93.184.216.34/', false)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://no-such-host.invalid/', false)).toMatchObject({ ok: false });
  });
});
