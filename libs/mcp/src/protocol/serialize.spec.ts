import { gunzipSync } from 'node:zlib';
import { adaptResponseForLegacyClient, adaptResultForModernClient } from './result-envelope.js';
import {
  EncodedAnswer,
  encodedOf,
  GZIP_MIN_BYTES,
  RawJson,
  serializeSuccess,
  sharedResult,
  successHead,
  successTail,
} from './serialize.js';

describe('pre-encoded success bodies', () => {
  const result = {
    tools: new RawJson('[{"name":"é","inputSchema":{"type":"object"}}]'),
    nextCursor: 'abc',
    _meta: { k: 'ü' },
  };

  it.each([1, 0, -7, 'req-1', 'quote"and\\back', null])(
    'head + tail are byte for byte serializeSuccess (id %s)',
    (id) => {
      const parts = Buffer.concat([successHead(id as never), successTail(result)]);
      expect(parts.equals(Buffer.from(serializeSuccess(id as never, result)))).toBe(true);
      expect(JSON.parse(parts.toString('utf8'))).toEqual({
        jsonrpc: '2.0',
        id,
        result: { tools: [{ name: 'é', inputSchema: { type: 'object' } }], nextCursor: 'abc', _meta: { k: 'ü' } },
      });
    },
  );

  it('a shared result carries its bytes cache; its copies (the era adapters spread it) and other results do not', () => {
    const shared = sharedResult({ tools: [] as unknown[] });
    expect(encodedOf(shared)).toBeInstanceOf(Map);
    expect(encodedOf({ ...shared })).toBeUndefined();
    expect(encodedOf({ tools: [] })).toBeUndefined();
    expect(Object.keys(shared)).toEqual(['tools']);
  });
});

describe('a shared answer gzip-coded from a prefix compressed once', () => {
  const page = sharedResult({
    tools: new RawJson(
      JSON.stringify(
        Array.from({ length: 40 }, (_, i) => ({
          name: `tool_${i}`,
          description: `Outil nº${i} — "quoted" \\ back`,
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        })),
      ),
    ),
    nextCursor: 'c-1',
  });
  const ERAS = [
    ['2026-07-28', adaptResultForModernClient('tools/list', page, { name: 's', version: '1' })],
    ['2025', adaptResponseForLegacyClient(page)],
  ] as const;
  const IDS = [0, 1, -7, 2 ** 53 - 1, 1.5e300, 'req-1', 'ünï😀', 'quote"and\\back\n', '\u2028', 'x'.repeat(70_000)];

  describe.each(ERAS)('%s era', (_, adapted) => {
    const answer = EncodedAnswer.of(adapted);

    it.each(IDS.map((id) => [typeof id === 'string' && id.length > 100 ? `${id.length} chars` : id, id]))(
      'gunzips to the identity answer, id last (id %s)',
      (_, id) => {
        const identity = Buffer.concat(answer.identity(id));
        expect(identity.equals(Buffer.from(serializeSuccess(id, adapted)))).toBe(true);
        const text = gunzipSync(Buffer.concat(answer.gzip(id))).toString('utf8');
        expect(JSON.parse(text)).toEqual(JSON.parse(identity.toString('utf8')));
        expect(Object.keys(JSON.parse(text))).toEqual(['jsonrpc', 'result', 'id']);
      },
    );

    it('reuses one compressed head for every id', () => {
      const [head] = answer.gzip(1);
      expect(answer.gzip('other')[0]).toBe(head);
      expect(head!.length).toBeLessThan(answer.tail.length / 4);
    });
  });

  it('compresses only answers over GZIP_MIN_BYTES', () => {
    expect(EncodedAnswer.of(adaptResponseForLegacyClient(page)).compressible).toBe(true);
    const small = EncodedAnswer.of({ tools: new RawJson('[{"name":"echo"}]') });
    expect(small.tail.length).toBeLessThanOrEqual(GZIP_MIN_BYTES);
    expect(small.compressible).toBe(false);
  });
});
