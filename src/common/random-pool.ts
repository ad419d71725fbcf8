import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the CSPRNG a pool at a time and each handed out once — as
 * `crypto.randomUUID` keeps 128 UUIDs' worth (Node's lib/internal/crypto/random.js, `kBatchSize`)
 * — for the ids made on every request: the `Request-Id` (request-id.ts) and, with tracing on, the
 * trace and span ids (telemetry/random-ids.ts).
 */
export class RandomPool {
  /**
   * The pool. The bytes `reserve` points at are the caller's until its next call, which may draw
   * the whole pool afresh: read them at once.
   */
  readonly bytes: Buffer;
  private used: number;
  private drawn = 0;

  /** `fill` writes random bytes over the whole pool (the tests give their own). */
  constructor(
    size: number,
    private readonly fill: (pool: Buffer) => void = randomFillSync,
  ) {
    this.bytes = Buffer.allocUnsafeSlow(size);
    this.used = size;
  }

  /**
   * How many times the pool was drawn. A pool's only user may read the whole of each draw
   * (random-ids.ts writes it as hex at once); with two users, each would read the other's bytes.
   */
  get draws(): number {
    return this.drawn;
  }

  /** Reserves `count` fresh random bytes (1 to the pool's size) and says where in `bytes` they start. */
  reserve(count: number): number {
    if (!(count >= 1 && count <= this.bytes.length))
      throw new RangeError(`a pool of ${this.bytes.length} bytes cannot give ${count}`);
    if (this.used + count > this.bytes.length) {
      this.fill(this.bytes);
      this.drawn++;
      this.used = 0;
    }
    const at = this.used;
    this.used = at + count;
    return at;
  }
}
