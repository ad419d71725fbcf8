import { randomFillSync } from 'node:crypto';

/** Lower-case hex digits by value: a byte is written as text by two lookups. */
export const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Random bytes drawn from the CSPRNG a pool at a time and each handed out once — as
 * `crypto.randomUUID` keeps 128 UUIDs' worth — for the ids made on every request: the `Request-Id`
 * (request-id.ts) and, with tracing on, the trace and span ids (telemetry/random-ids.ts).
 */
export class RandomPool {
  /** The pool; `take` says where in it the caller's bytes are. */
  readonly bytes: Buffer;
  private used: number;

  /** `fill` writes random bytes over the whole pool (the tests give their own). */
  constructor(
    size: number,
    private readonly fill: (pool: Buffer) => void = randomFillSync,
  ) {
    this.bytes = Buffer.allocUnsafeSlow(size);
    this.used = size;
  }

  /** Where `count` (at most the pool's size) fresh random bytes start in `bytes`. */
  take(count: number): number {
    if (this.used + count > this.bytes.length) {
      this.fill(this.bytes);
      this.used = 0;
    }
    const at = this.used;
    this.used = at + count;
    return at;
  }
}
