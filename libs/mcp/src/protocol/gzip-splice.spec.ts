import { constants, crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { gzipPrefix, gzipSuffix } from './gzip-splice.js';

const member = (prefix: Buffer, suffix: Buffer): Buffer => {
  const compressed = gzipPrefix(prefix);
  return Buffer.concat([compressed.head, gzipSuffix(compressed, suffix)]);
};

describe('a gzip member from a prefix compressed once and a stored suffix', () => {
  const prefix = Buffer.from('{"jsonrpc":"2.0","result":{"tools":[' + '{"name":"tool_é"},'.repeat(300) + '{}]}');

  it.each([
    ['a short suffix', ',"id":1}'],
    ['unicode', ',"id":"ü😀"}'],
    ['an empty suffix', ''],
  ])('gunzips to prefix + suffix: %s', (_, text) => {
    const suffix = Buffer.from(text);
    expect(gunzipSync(member(prefix, suffix)).equals(Buffer.concat([prefix, suffix]))).toBe(true);
  });

  it('splits a suffix longer than one stored block (65 535 bytes) over several blocks', () => {
    for (const length of [65_535, 65_536, 200_000]) {
      const suffix = Buffer.alloc(length, 'x');
      expect(gunzipSync(member(prefix, suffix)).equals(Buffer.concat([prefix, suffix])), String(length)).toBe(true);
    }
  });

  it('writes a gzip header, the prefix deflated with a sync flush, and a CRC-32 and ISIZE over both parts', () => {
    const suffix = Buffer.from(',"id":42}');
    const bytes = member(prefix, suffix);
    expect([...bytes.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
    const deflated = deflateRawSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH });
    expect(bytes.subarray(10, 10 + deflated.length).equals(deflated)).toBe(true);
    // The sync flush's empty stored block: the prefix ends on a byte boundary, with no final block.
    expect([...deflated.subarray(-4)]).toEqual([0x00, 0x00, 0xff, 0xff]);
    const block = bytes.subarray(10 + deflated.length, 10 + deflated.length + 5);
    expect([...block]).toEqual([0x01, suffix.length, 0, ~suffix.length & 0xff, 0xff]);
    const whole = Buffer.concat([prefix, suffix]);
    expect(bytes.readUInt32LE(bytes.length - 8)).toBe(crc32(whole));
    expect(bytes.readUInt32LE(bytes.length - 4)).toBe(whole.length);
    expect(bytes.length).toBe(10 + deflated.length + 5 + suffix.length + 8);
  });

  it('compresses the prefix once: the same head serves every suffix', () => {
    const compressed = gzipPrefix(prefix);
    expect(compressed.head.length).toBeLessThan(prefix.length / 4);
    for (const id of ['1', '"a"', '9007199254740991']) {
      const suffix = Buffer.from(`,"id":${id}}`);
      const bytes = Buffer.concat([compressed.head, gzipSuffix(compressed, suffix)]);
      expect(gunzipSync(bytes).toString()).toBe(prefix.toString() + suffix.toString());
    }
  });
});
