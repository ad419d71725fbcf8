import { summarizeArguments } from './approval-summary.js';

describe('the approval summary', () => {
  it('cuts long strings, long lists, wide and deep objects visibly, and redacts secrets', () => {
    const summary = summarizeArguments({
      task_id: 'abc',
      note: 'x'.repeat(900_000),
      list: Array.from({ length: 50 }, (_, i) => i),
      wide: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])),
      deep: { a: { b: { c: { d: 1 } } } },
      api_key: 'sk-123',
    });
    expect(summary.task_id).toBe('abc');
    expect(summary.note).toBe(`${'x'.repeat(200)}… (+899800 characters)`);
    expect(summary.list).toHaveLength(21);
    expect((summary.list as unknown[])[20]).toBe('… (+30 more items)');
    expect(Object.keys(summary.wide as object)).toHaveLength(31);
    expect((summary.wide as Record<string, unknown>)['…']).toBe('+10 more keys');
    expect(summary.deep).toEqual({ a: { b: { c: '{…}' } } });
    expect(summary.api_key).toBe('[redacted]');
    expect(JSON.stringify(summary).length).toBeLessThan(2_000);
  });
});
