import type { Attributes } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, vi } from 'vitest';
import { encodeExportRequest, encodeSpan } from './otlp-trace-encoding.js';
import { ProtoWriter } from './proto-writer.js';

/**
 * The memo of encoded attributes (otlp-common-encoding.ts) as a process meets it: empty at first,
 * then kept. This file has a module graph of its own (vitest.config.mts, ISOLATED), so the memo is
 * empty when it starts and only these tests fill it.
 */

const RESOURCE = { attributes: { 'service.name': 'kadu' } };
const SCOPE = { name: '@kobana/nest-mcp', version: '1.0.0' };

/** An MCP request's span, as the module makes it (span-attributes.ts, mcp-telemetry.ts). */
const mcpAttributes = (port: number, id: string): Attributes => ({
  'mcp.method.name': 'tools/call',
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'bench_echo',
  'jsonrpc.request.id': id,
  'network.transport': 'tcp',
  'network.protocol.name': 'http',
  'network.protocol.version': '1.1',
  'client.address': '127.0.0.1',
  'client.port': port,
  'mcp.protocol.version': '2026-07-28',
  'http.response.status_code': 200,
});

const spanWith = (attributes: Attributes, n = 0): ReadableSpan =>
  ({
    spanContext: () => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }),
    parentSpanContext: undefined,
    name: 'tools/call bench_echo',
    kind: 1,
    startTime: [1_765_000_000, n],
    endTime: [1_765_000_000, n + 300_000],
    attributes,
    events: [],
    links: [],
    status: { code: 0 },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    resource: RESOURCE,
    instrumentationScope: SCOPE,
  }) as unknown as ReadableSpan;

const ours = (spans: ReadableSpan[]): string =>
  Buffer.from(
    encodeExportRequest(
      spans.map((s) => ({ resource: s.resource, instrumentationScope: s.instrumentationScope, ...encodeSpan(s) })),
    ),
  ).toString('hex');
const reference = (spans: ReadableSpan[]): string =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!).toString('hex');

afterEach(() => vi.restoreAllMocks());

describe('the memo of encoded attributes', () => {
  it('writes a repeated span from it: no key written again, and the bytes the SDK serializer writes', () => {
    const strings = vi.spyOn(ProtoWriter.prototype, 'string');
    const first = spanWith(mcpAttributes(50_000, '1'));
    expect(ours([first])).toBe(reference([first]));
    const writtenFirst = strings.mock.calls.map(([s]) => s);
    expect(writtenFirst).toEqual(expect.arrayContaining(['mcp.method.name', 'client.port', 'tools/call']));

    strings.mockClear();
    const again = spanWith(mcpAttributes(50_001, '2'), 1);
    expect(ours([again])).toBe(reference([again]));
    // The span's name and the scope's are fields of their own. Every key came from the memo, and
    // every value met before; only the new request id is written (the new port is a number).
    expect(strings.mock.calls.map(([s]) => s)).toEqual(['tools/call bench_echo', '2', SCOPE.name, SCOPE.version]);
  });

  it('keeps so many values a key, then writes new ones anew, every span still as the SDK writes it', () => {
    const spans = Array.from({ length: 60 }, (_, i) => spanWith(mcpAttributes(40_000 + i, String(i)), i));
    for (const span of spans) expect(ours([span])).toBe(reference([span]));
    expect(ours(spans)).toBe(reference(spans));
    // The first ports met are still kept: written again, no port is encoded anew.
    const varints = vi.spyOn(ProtoWriter.prototype, 'int64');
    expect(ours([spans[3]])).toBe(reference([spans[3]]));
    expect(varints).not.toHaveBeenCalled();
    expect(ours([spans[59]])).toBe(reference([spans[59]]));
    expect(varints).toHaveBeenCalledWith(40_059);
  });

  it('tells apart the values a map would, and writes alike those it would not', () => {
    const cases: Attributes[] = [
      { v: 0 },
      { v: -0 },
      { v: '0' },
      { v: false },
      { v: 1 },
      { v: true },
      { v: '1' },
      { v: NaN },
      { v: 1.5 },
      { v: 2 ** 63 },
      { v: -(2 ** 63) },
      { v: 'é' },
      { v: '\ud800' },
      { v: '' },
    ];
    // Twice round: the second time every value comes from the memo.
    for (const attributes of [...cases, ...cases]) {
      const span = spanWith(attributes);
      expect(ours([span])).toBe(reference([span]));
    }
  });

  it('writes long keys and values, and messages past one length byte, as the SDK writes them, kept or not', () => {
    const cases: Attributes[] = [
      { ['k'.repeat(100)]: 'v' },
      { ['k'.repeat(101)]: 'v' },
      { key: 'v'.repeat(64) },
      { key: 'v'.repeat(65) },
      { ['é'.repeat(60)]: 'ü'.repeat(60) },
      { ['€'.repeat(100)]: 'x' },
      { list: ['a', 'b'] },
    ];
    for (const attributes of [...cases, ...cases]) {
      const span = spanWith(attributes);
      expect(ours([span])).toBe(reference([span]));
    }
  });

  it('past so many keys, writes new keys anew, as the SDK writes them', () => {
    const many = Array.from({ length: 300 }, (_, i) => spanWith({ [`key.${i}`]: i, shared: 'x' }, i));
    expect(ours(many)).toBe(reference(many));
    const strings = vi.spyOn(ProtoWriter.prototype, 'string');
    const late = spanWith({ 'key.299': 299, 'key.0': 0 });
    expect(ours([late])).toBe(reference([late]));
    // `key.0` was met while there was room; `key.299` after (the tests above kept a few keys
    // more): only it is written anew.
    expect(strings.mock.calls.map(([s]) => s)).toEqual(['tools/call bench_echo', 'key.299', SCOPE.name, SCOPE.version]);
  });
});
