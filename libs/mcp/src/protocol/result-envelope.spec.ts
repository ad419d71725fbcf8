import { adaptResponseForLegacyClient, adaptResultForModernClient } from './result-envelope.js';

const INFO = { name: 'kadu', title: 'Kadu', version: '1.0.0' };
const KEY = 'io.modelcontextprotocol/serverInfo';

describe('adaptResultForModernClient', () => {
  it('adds resultType, serverInfo and cache hints to cacheable methods', () => {
    expect(adaptResultForModernClient('tools/list', { tools: [] }, INFO)).toEqual({
      resultType: 'complete',
      tools: [],
      _meta: { [KEY]: INFO },
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it('adds no cache hints to tools/call', () => {
    expect(adaptResultForModernClient('tools/call', { content: [] }, INFO)).toEqual({
      resultType: 'complete',
      content: [],
      _meta: { [KEY]: INFO },
    });
  });

  it('keeps input_required free of cache hints and refuses it outside the three methods', () => {
    const r = adaptResultForModernClient(
      'tools/call',
      { resultType: 'input_required', requestState: 's', ttlMs: 5 },
      INFO,
    );
    expect(r).toEqual({ resultType: 'input_required', requestState: 's', _meta: { [KEY]: INFO } });
    expect(() => adaptResultForModernClient('tools/list', { resultType: 'input_required' }, INFO)).toThrow();
  });

  it('keeps other _meta keys', () => {
    expect(adaptResultForModernClient('tools/call', { content: [], _meta: { a: 1 } }, INFO)._meta).toEqual({
      a: 1,
      [KEY]: INFO,
    });
  });
});

describe('adaptResponseForLegacyClient', () => {
  it('strips every 2026 field', () => {
    const modern = adaptResultForModernClient('tools/list', { tools: [] }, INFO);
    expect(adaptResponseForLegacyClient(modern)).toEqual({ tools: [] });
  });

  it('keeps an empty result exactly {} and other _meta keys', () => {
    expect(adaptResponseForLegacyClient({})).toEqual({});
    // structuredContent is 2025-06-18 and later: a 2025-03-26 result is text only.
    const structured = { content: [], structuredContent: { a: 1 } };
    expect(adaptResponseForLegacyClient(structured, '2025-03-26')).toEqual({ content: [] });
    expect(adaptResponseForLegacyClient(structured, '2025-06-18')).toEqual(structured);
    expect(adaptResponseForLegacyClient({ content: [], _meta: { a: 1, [KEY]: INFO } })).toEqual({
      content: [],
      _meta: { a: 1 },
    });
  });

  it('refuses input_required', () => {
    expect(() => adaptResponseForLegacyClient({ resultType: 'input_required' })).toThrow();
  });
});
