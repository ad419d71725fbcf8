import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { HEX_DIGITS } from '../common/hex-digits.js';
import { RandomPool } from '../common/random-pool.js';

// 170 root spans' ids a draw from the CSPRNG (24 bytes each; a child span takes 8), as
// request-id.ts draws 256 ids.
const POOL_BYTES = 4096;
const ZERO_DIGIT = 0x30;
const ONE_DIGIT = 0x31;

/**
 * Trace and span ids for the SDK (`NodeTracerProvider`'s `idGenerator`): random bytes from a
 * CSPRNG pool (common/random-pool.ts) written as lower-case hex by table into one reused buffer,
 * read out as a flat string. The SDK's own generator draws from `Math.random` four bytes at a time
 * through `writeUInt32BE` and hex-encodes with `toString('hex')`: for a trace id and a span id
 * (what a root span draws), ~10 800 instructions against ~2 700 here, in a loop (bench/RESULTS.md,
 * issue 32, twenty-first pass). W3C Trace Context forbids an all-zero id: as the SDK does, its last
 * byte becomes 1.
 */
export class PooledRandomIdGenerator implements IdGenerator {
  private readonly pool: RandomPool;
  private readonly text = Buffer.allocUnsafeSlow(32);

  /** `fill` writes random bytes over the whole pool (the tests give their own; by default the CSPRNG). */
  constructor(fill?: (pool: Buffer) => void) {
    this.pool = new RandomPool(POOL_BYTES, fill);
  }

  generateTraceId(): string {
    return this.hexId(16);
  }

  generateSpanId(): string {
    return this.hexId(8);
  }

  private hexId(bytes: number): string {
    const from = this.pool.reserve(bytes);
    const random = this.pool.bytes;
    const text = this.text;
    let any = 0;
    for (let i = 0; i < bytes; i++) {
      const b = random[from + i];
      any |= b;
      text[2 * i] = HEX_DIGITS[b >> 4];
      text[2 * i + 1] = HEX_DIGITS[b & 15];
    }
    if (any === 0) {
      text[2 * bytes - 2] = ZERO_DIGIT;
      text[2 * bytes - 1] = ONE_DIGIT;
    }
    return text.toString('latin1', 0, 2 * bytes);
  }
}
