import { HEX_DIGITS } from './hex-digits.js';
import { RandomPool } from './random-pool.js';

/** UUIDs drawn from the CSPRNG at once, as `crypto.randomUUID` draws them (it keeps 128). */
const IDS_PER_DRAW = 256;
const pool = new RandomPool(16 * IDS_PER_DRAW);
const text = Buffer.alloc(36);
const DASH = 0x2d;

/**
 * A random (version 4) UUID naming one request in the `Request-Id` header and the logs.
 *
 * Why not `crypto.randomUUID()`: it returns its 36 characters as a rope of twenty pieces, which
 * Node's header check and the response head each copy out again: ~0.5 kB of garbage per request
 * in the heap profile; the CPU saved is within the bench's variance (bench/RESULTS.md, issue 32,
 * tenth pass).
 * Here the same 122 random bits from the same generator are written as one flat string.
 */
export function newRequestId(): string {
  const from = pool.reserve(16);
  const random = pool.bytes;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    let byte = random[from + i];
    // RFC 9562 §5.4: version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = DASH;
    text[at++] = HEX_DIGITS[byte >> 4];
    text[at++] = HEX_DIGITS[byte & 0x0f];
  }
  return text.toString('latin1', 0, 36);
}
