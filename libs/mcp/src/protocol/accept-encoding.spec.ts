import { acceptsGzip } from './accept-encoding.js';

describe('Accept-Encoding: gzip or identity (RFC 9110 §12.5.3)', () => {
  it.each([
    'gzip',
    'gzip, deflate',
    'gzip, deflate, br, zstd',
    'GZip',
    'x-gzip',
    'deflate, gzip;q=0.5',
    'gzip;Q=0.001',
    'gzip ; q=1.000',
    '*',
    '*;q=0.2',
    'br, *',
    ', gzip,,',
    'gzip;q=0.8, identity;q=0.5',
    'gzip;q=0.5, identity;q=0.5',
    'gzip;q=0, gzip;q=1',
  ])('accepts gzip: %j', (header) => {
    expect(acceptsGzip(header)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'identity',
    'br',
    'deflate, br',
    'gzip;q=0',
    'gzip;q=0.000',
    'GZIP;Q=0',
    'x-gzip;q=0',
    '*;q=0',
    '*, gzip;q=0',
    'gzip;q=0, *',
    'gzip;q=0.5, identity',
    'identity;q=1, *;q=0.5',
  ])('answers identity: %j', (header) => {
    expect(acceptsGzip(header)).toBe(false);
  });

  it.each([
    'gzip;q=2',
    'gzip;q=1.5',
    'gzip;q=0.1234',
    'gzip;q=',
    'gzip;q',
    'gzip;q=abc',
    'gzip;level=9',
    'gzip;q=1;q=1',
    'gzip;q=1=1',
    'gz ip',
    'gzip, "br"',
    'gzip; ',
    ';q=1',
    'gzip, deflate;q=x',
  ])('reads a malformed header as no preference (identity), without throwing: %j', (header) => {
    expect(acceptsGzip(header)).toBe(false);
  });
});
