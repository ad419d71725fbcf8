import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { RandomPool } from '../common/random-pool.js';

// 170 root spans' ids a draw from the CSPRNG (24 bytes each; a child span takes 8), as
// request-id.ts draws 256 ids.
const POOL_BYTES = 4096;

/**
 * Trace and span ids for the SDK (`NodeTracerProvider`'s `idGenerator`): random bytes from a
 * CSPRNG pool (common/random-pool.ts), the whole pool written as lower-case hex once per draw, and
 * each id a slice of that text (V8 makes a slice of 13 characters or more a view of its parent, not
 * a copy). The SDK's own generator draws from `Math.random` four bytes at a time through
 * `writeUInt32BE` and hex-encodes with `toString('hex')`: ~10 800 instructions for a trace id and a
 * span id (what a root span draws). Each id written by table into a buffer read out as a string
 * took ~2 700 (bench/RESULTS.md, issue 32, twenty-first pass) — ~185 ns for the two in a loop,
 * against ~85 as slices (thirty-second pass). A draw's text (8 kB) lives while one of its ids
 * does. W3C Trace Context forbids an all-zero id: as the SDK does, its last byte becomes 1.
 */
export class PooledRandomIdGenerator implements IdGenerator {
  private readonly pool: RandomPool;
  /** The pool's bytes as hex, and the draw they are of. */
  private text = '';
  private textOf = -1;

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
    const pool = this.pool;
    const from = pool.reserve(bytes);
    if (this.textOf !== pool.draws) {
      this.text = pool.bytes.toString('hex');
      this.textOf = pool.draws;
    }
    const random = pool.bytes;
    let any = 0;
    for (let i = from; i < from + bytes; i++) any |= random[i];
    if (any === 0) return `${'0'.repeat(2 * bytes - 2)}01`;
    return this.text.slice(2 * from, 2 * (from + bytes));
  }
}
