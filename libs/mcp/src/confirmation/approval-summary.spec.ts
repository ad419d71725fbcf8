import { isSecretKey, redactSecrets, summarizeArguments } from './approval-summary.js';

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

describe('one redaction rule for the summary and the sentence', () => {
  it('redacts the same keys at any depth, keeps ids (they point at a secret, they are none), changes nothing else', () => {
    const args = {
      secret_id: 'sec_1',
      answers: { decisions: { 1: 'L-2' }, password: 'p', list: [{ api_key: 'k' }, 'plain'] },
      client_secret: { any: 'shape' },
      deep: { a: { b: { c: { d: { access_token: 't' } } } } },
    };
    expect(redactSecrets(args)).toEqual({
      secret_id: 'sec_1',
      answers: { decisions: { 1: 'L-2' }, password: '[redacted]', list: [{ api_key: '[redacted]' }, 'plain'] },
      client_secret: '[redacted]',
      deep: { a: { b: { c: { d: { access_token: '[redacted]' } } } } },
    });
    const summary = summarizeArguments(args);
    expect(summary.secret_id).toBe('sec_1');
    expect(summary.client_secret).toBe('[redacted]');
    expect((summary.answers as Record<string, unknown>).password).toBe('[redacted]');
    expect(['password', 'api_key', 'clientSecret', 'access_token', 'value'].every(isSecretKey)).toBe(true);
    expect(['secret_id', 'tokenId', 'api_key_ids', 'note'].some(isSecretKey)).toBe(false);
  });
});
