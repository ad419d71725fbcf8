import type { Attributes, ObservableResult } from '@opentelemetry/api';

export type RequestDoor = 'mcp' | 'api' | 'other';
export type RequestOutcome = 'ok' | 'tool_error' | 'refused' | 'rate_limited' | 'unavailable' | 'error';

const DOORS: readonly RequestDoor[] = ['mcp', 'api', 'other'];
const OUTCOMES: readonly RequestOutcome[] = ['ok', 'tool_error', 'refused', 'rate_limited', 'unavailable', 'error'];

interface Count {
  readonly labels: Attributes;
  value: number;
}

/**
 * Requests answered, by door and outcome (3 × 6 label sets, each made once), counted in the
 * process: adding one is an increment, and the SDK reads the totals only when it collects
 * (`kadu.requests`, an observable counter; see kadu-metrics.ts).
 */
export class RequestTally {
  private readonly counts = new Map<RequestDoor, Map<RequestOutcome, Count>>(
    DOORS.map((door) => [
      door,
      new Map(
        OUTCOMES.map((outcome) => [
          outcome,
          { labels: Object.freeze({ 'kadu.door': door, 'kadu.outcome': outcome }), value: 0 },
        ]),
      ),
    ]),
  );

  add(door: RequestDoor, outcome: RequestOutcome): void {
    this.counts.get(door)!.get(outcome)!.value++;
  }

  /** The running totals, as a cumulative counter reports them; label sets never seen are left out. */
  observe(result: ObservableResult): void {
    for (const byOutcome of this.counts.values())
      for (const count of byOutcome.values()) if (count.value > 0) result.observe(count.value, count.labels);
  }
}
