/**
 * Protocol Buffers' wire format (protobuf.dev/programming-guides/encoding), written into a
 * growable Buffer from `pos` on: varints, tags, fixed-width numbers, strings, and length-delimited
 * messages whose length is written once their end is known. Its user may set `buf` and `pos`
 * (otlp-trace-encoding.ts writes each span after the last in a chunk). What otlp-trace-encoding.ts
 * needs, nothing more.
 */
export class ProtoWriter {
  /** Off the JS heap (an external backing store): the collector never copies it. */
  buf: Buffer;
  pos = 0;

  constructor(size = 16_384) {
    this.buf = Buffer.allocUnsafeSlow(size);
  }

  /** Room for `n` more bytes, the written ones kept. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A non-negative integer up to 2^53 as a varint (lengths, counts, enums, tags). */
  varint(v: number): void {
    this.room(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  /** An int64 varint: negatives in two's complement (ten bytes), as protobuf writes them. */
  int64(v: number): void {
    if (v >= 0 && v <= Number.MAX_SAFE_INTEGER) return this.varint(v);
    let rest = BigInt.asUintN(64, BigInt(v));
    this.room(10);
    while (rest >= 0x80n) {
      this.buf[this.pos++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buf[this.pos++] = Number(rest);
  }

  /** A field's tag: one byte for field numbers below 16 (all of OTLP's but `Span.flags`). */
  tag(field: number, wireType: 0 | 1 | 2 | 5): void {
    const v = field * 8 + wireType;
    if (v >= 0x80) return this.varint(v);
    this.room(1);
    this.buf[this.pos++] = v;
  }

  // Fixed-width integers byte by byte: Buffer's writeUInt32LE checks its arguments on each call,
  // ~3 times the time of these stores in a loop (bench/RESULTS.md, issue 32, twenty-first pass).
  fixed32(v: number): void {
    this.room(4);
    this.pos = put32(this.buf, this.pos, v >>> 0);
  }

  fixed64(low: number, high: number): void {
    this.room(8);
    this.pos = put32(this.buf, put32(this.buf, this.pos, low >>> 0), high >>> 0);
  }

  double(v: number): void {
    this.room(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  /** Length-prefixed UTF-8. Short ASCII, most attribute values, is copied char by char. */
  string(s: string): void {
    const n = s.length;
    if (n < 0x80) {
      this.room(n + 1);
      const at = this.pos;
      this.buf[at] = n;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        this.buf[at + 1 + i] = c;
      }
      if (i === n) {
        this.pos = at + 1 + n;
        return;
      }
    }
    const length = Buffer.byteLength(s, 'utf8');
    this.varint(length);
    this.room(length);
    this.pos += this.buf.write(s, this.pos, length, 'utf8');
  }

  /** Length-prefixed bytes. */
  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.copy(b);
  }

  /** Bytes as they are (already encoded elsewhere). */
  copy(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Length-prefixed bytes from a hex string (trace and span ids). */
  hex(h: string): void {
    const n = h.length >>> 1;
    this.varint(n);
    this.room(n);
    const buf = this.buf;
    let p = this.pos;
    // Two characters a byte; an odd last character is dropped, as the SDK's serializer drops it.
    for (let i = 0; i < 2 * n; i += 2) buf[p++] = (nibble(h.charCodeAt(i)) << 4) | nibble(h.charCodeAt(i + 1));
    this.pos = p;
  }

  /** Opens a length-delimited message: one byte kept for its length, the common case. */
  open(): number {
    this.room(1);
    return this.pos++;
  }

  /** Closes the message opened at `at`: its length written there, its bytes moved when it needs more than one. */
  close(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    const size = varintSize(length);
    this.room(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    let v = length;
    let p = at;
    while (v >= 0x80) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
  }
}

/** `v`, an unsigned 32-bit integer, little-endian at `p`; where the next byte goes. */
function put32(buf: Buffer, p: number, v: number): number {
  buf[p] = v;
  buf[p + 1] = v >>> 8;
  buf[p + 2] = v >>> 16;
  buf[p + 3] = v >>> 24;
  return p + 4;
}

export const varintSize = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;

/**
 * A hex digit's value as `@opentelemetry/otlp-transformer` reads it (`common/hex-to-binary.js`):
 * `0-9`, `a-f`, and any other character as if it were one of `A-F`, so that an id that is not hex
 * (a link's context is not checked by the SDK) is written as the SDK's serializer writes it.
 * Looked up in a table for ASCII: the comparisons mispredicted on random ids' digits, ~160 ns a
 * trace id against ~55 in a loop (bench/RESULTS.md, issue 32, twenty-first pass).
 */
const digit = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c - 55);
const NIBBLE = Int32Array.from({ length: 0x80 }, (_, c) => digit(c));
const nibble = (c: number): number => (c < 0x80 ? NIBBLE[c] : c - 55);
