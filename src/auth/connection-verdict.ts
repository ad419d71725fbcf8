import type { Verification } from './token-verifier.js';

type Verified = Verification & { ok: true };

/** The last token verified on one connection, and for how long its verdict holds. */
interface Remembered {
  readonly token: string;
  readonly audience: string;
  readonly verdict: Verified;
  /** The instant the verdict stops holding: the token's `exp` or the verified-token cache's bound, whichever is first. */
  readonly until: number;
  /** The verifier's key-set generation when it was verified: a changed key set forgets it. */
  readonly generation: number;
}

/**
 * A kept-alive connection sends the same token on every request: its verdict is remembered on the
 * connection (socket) itself, so that a repeat costs a string comparison instead of hashing the
 * token for the process-wide cache (TokenVerifier). The memo holds no more than that cache would
 * serve — the same token and audience, never past the same instant, forgotten when the key set
 * changes — and goes with the socket (a WeakMap: nothing to evict). A different token on the same
 * connection is verified as any other.
 */
export class ConnectionVerdicts {
  private readonly byConnection = new WeakMap<object, Remembered>();

  /** The verdict remembered for this token and audience on this connection, if it still holds. */
  recall(
    connection: object,
    token: string,
    audience: string,
    generation: number,
    now = Date.now(),
  ): Verified | undefined {
    const memo = this.byConnection.get(connection);
    if (!memo || memo.token !== token || memo.audience !== audience || memo.generation !== generation) return;
    if (now >= memo.until) {
      this.byConnection.delete(connection);
      return;
    }
    return memo.verdict;
  }

  remember(
    connection: object,
    token: string,
    audience: string,
    verdict: Verified,
    until: number,
    generation: number,
  ): void {
    if (until <= Date.now()) return;
    this.byConnection.set(connection, { token, audience, verdict, until, generation });
  }
}
