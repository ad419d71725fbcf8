import type { Attributes, ObservableResult } from '@opentelemetry/api';
import { RequestTally } from './request-tally.js';

/** What one collection observes: [value, labels] per label set. */
function collect(tally: RequestTally): [number, Attributes | undefined][] {
  const seen: [number, Attributes | undefined][] = [];
  tally.observe({ observe: (value, labels) => seen.push([value, labels]) } as ObservableResult);
  return seen;
}

describe('RequestTally (kadu.requests)', () => {
  it('observes nothing before a request was answered', () => {
    expect(collect(new RequestTally())).toEqual([]);
  });

  it('observes running totals by door and outcome, only for label sets seen, the same objects each time', () => {
    const tally = new RequestTally();
    tally.add('mcp', 'ok');
    tally.add('mcp', 'ok');
    tally.add('api', 'rate_limited');
    const first = collect(tally);
    expect(first).toEqual([
      [2, { 'kadu.door': 'mcp', 'kadu.outcome': 'ok' }],
      [1, { 'kadu.door': 'api', 'kadu.outcome': 'rate_limited' }],
    ]);
    tally.add('mcp', 'ok');
    const second = collect(tally);
    // Cumulative, as a counter's sum: the SDK makes deltas itself when a reader asks for them.
    expect(second[0][0]).toBe(3);
    expect(second[0][1]).toBe(first[0][1]);
    expect(second[1]).toEqual(first[1]);
  });
});
