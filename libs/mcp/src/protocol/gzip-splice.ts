import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * A gzip member (RFC 1952) whose long constant prefix is compressed once and whose short
 * per-request suffix is appended without compressing anything.
 *
 * The prefix is deflated with a sync flush (RFC 1951 §3.2.4: the flush ends on a byte boundary
 * and writes no final block), so any further deflate blocks may follow it. The suffix goes in
 * *stored* blocks (BTYPE 00: a byte 0x00/0x01 with BFINAL, then LEN and its one's complement
 * NLEN, little-endian, then the bytes as they are), the last one final. The trailer's CRC-32 is
 * the prefix's CRC continued over the suffix, and ISIZE the total length modulo 2^32. So a
 * request costs a few header bytes and a CRC over its suffix, never a compression.
 */
export interface GzipPrefix {
  /** The gzip header followed by the prefix's deflate blocks (no final block). */
  readonly head: Buffer;
  readonly crc: number;
  readonly length: number;
}

/** ID1 ID2, CM = 8 (deflate), FLG = 0, MTIME = 0 (none), XFL = 0, OS = 255 (unknown): RFC 1952 §2.3. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
const STORED_MAX = 0xffff;

export function gzipPrefix(prefix: Buffer): GzipPrefix {
  const deflated = deflateRawSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH });
  return { head: Buffer.concat([GZIP_HEADER, deflated]), crc: crc32(prefix), length: prefix.length };
}

/** The rest of the member after `prefix.head`: the suffix in final stored block(s) and the trailer. */
export function gzipSuffix(prefix: GzipPrefix, suffix: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(suffix.length / STORED_MAX));
  const out = Buffer.allocUnsafe(blocks * 5 + suffix.length + 8);
  let at = 0;
  for (let block = 0, from = 0; block < blocks; block++) {
    const length = Math.min(STORED_MAX, suffix.length - from);
    out[at] = block === blocks - 1 ? 0x01 : 0x00;
    out.writeUInt16LE(length, at + 1);
    out.writeUInt16LE(~length & 0xffff, at + 3);
    at += 5 + suffix.copy(out, at + 5, from, from + length);
    from += length;
  }
  out.writeUInt32LE(crc32(suffix, prefix.crc), at);
  out.writeUInt32LE((prefix.length + suffix.length) % 0x1_0000_0000, at + 4);
  return out;
}
