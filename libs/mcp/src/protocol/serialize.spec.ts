import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import type { JsonRpcId } from './rejection.js';
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

describe('serializeSuccess writes a plain result at once, as field by field', () => {
  /** The field-by-field writing it had before (and still uses for RawJson): the reference. */
  function fieldByField(id: JsonRpcId, result: Record<string, unknown>): string {
    let out = '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{';
    let first = true;
    for (const key in result) {
      const value = result[key];
      if (value === undefined) continue;
      out +=
        (first ? '' : ',') +
        JSON.stringify(key) +
        ':' +
        (value instanceof RawJson ? value.json : JSON.stringify(value));
      first = false;
    }
    return out + '}}';
  }
  const ids = fc.oneof(fc.integer(), fc.string(), fc.constant(null));
  const fields = fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(undefined)), { maxKeys: 6 });

  it('the same text for drawn results, with or without RawJson fields', async () => {
    await checkProperty(
      'serializeSuccess at once = field by field',
      fc.property(ids, fields, fc.boolean(), (id, drawn, raw) => {
        const result: Record<string, unknown> = { ...drawn };
        if (raw) result.spliced = new RawJson('{"a":[1,"ü"]}');
        expect(serializeSuccess(id as JsonRpcId, result)).toBe(fieldByField(id as JsonRpcId, result));
      }),
      { numRuns: 500 },
    );
  });

  it('a result stringify would see differently keeps the field-by-field text', () => {
    class Result {
      content = [{ type: 'text', text: 'x' }];
      toJSON(): unknown {
        return { other: true };
      }
    }
    const inherited = Object.assign(Object.create({ inheritedField: 1 }) as object, { own: 2 });
    const bare = Object.assign(Object.create(null) as object, { content: [] });
    const withFunction = { content: [], callback: () => 1 };
    for (const result of [new Result(), inherited, bare, withFunction] as Record<string, unknown>[])
      expect(serializeSuccess(7, result)).toBe(fieldByField(7, result));
    expect(serializeSuccess(7, new Result() as never)).toBe(
      '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}',
    );
  });
});
