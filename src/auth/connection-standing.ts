import type { KaduPrincipal } from './kadu-principal.js';
import type { MembershipCheck, Standing } from './membership.js';

/** What one connection's last admitted request was admitted as. */
interface Kept {
  /** The verdict recalled for its token (TokenVerifier.recall): the same object while it holds. */
  readonly verdict: object;
  readonly membership: MembershipCheck;
  readonly standing: Standing;
}

/**
 * The member's standing a kept-alive connection was last admitted with, so that its next request
 * with the same recalled verdict reads the member's cached record once (Standing.holds: the same
 * record, unexpired) instead of rebuilding its key and capping the role again (bench/RESULTS.md,
 * issue 32). It answers only what MembershipCheck.effectiveNow would answer at that instant: a
 * change of the member forgets the record, and with it this answer, at once. A WeakMap on the
 * socket, as ConnectionVerdicts: nothing to evict.
 */
export class ConnectionStandings {
  private readonly byConnection = new WeakMap<object, Kept>();

  /** The caller for `verdict` at `now`, from the standing kept on this connection; else undefined. */
  recall(connection: object, verdict: object, membership: MembershipCheck, now: number): KaduPrincipal | undefined {
    const kept = this.byConnection.get(connection);
    if (!kept || kept.verdict !== verdict || kept.membership !== membership || !kept.standing.holds(now)) return;
    return kept.standing.caller;
  }

  remember(connection: object, verdict: object, membership: MembershipCheck, standing: Standing): void {
    this.byConnection.set(connection, { verdict, membership, standing });
  }
}
