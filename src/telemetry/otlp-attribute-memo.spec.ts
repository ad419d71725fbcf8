import type { Attributes } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, vi } from 'vitest';
import { encodeExportRequest, encodeSpan } from './otlp-trace-encoding.js';
import { ProtoWriter } from './proto-writer.js';

/**
 * The memo of encoded attributes (otlp-common-encoding.ts) as a process meets it: empty at first,
 * then kept. This file has a module graph of its own (vitest.config.mts, ISOLATED), so the memo is
 * empty when it starts and only these tests fill it — in order: each test meets what the ones
 * before it kept.
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

  it('keeps 16 values a key, the first met, and writes later ones anew, every span as the SDK writes it', () => {
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

  it('keeps 0 and -0 as one value, and "0", false, 0, NaN and the int64 and double edges apart', () => {
    const values = [0, -0, '0', false, 1, true, '1', NaN, 1.5, 2 ** 63, -(2 ** 63), 'é', '\ud800', ''];
    const spans = values.map((v) => spanWith({ v }));
    for (const span of spans) expect(ours([span])).toBe(reference([span]));
    // The second time round every value comes from the memo but NaN (never kept: its bits may
    // differ) and the lone surrogate (kept as the string it is written as, U+FFFD).
    const strings = vi.spyOn(ProtoWriter.prototype, 'string');
    const int64s = vi.spyOn(ProtoWriter.prototype, 'int64');
    const doubles = vi.spyOn(ProtoWriter.prototype, 'double');
    for (const span of spans) expect(ours([span])).toBe(reference([span]));
    expect(int64s).not.toHaveBeenCalled();
    expect(doubles.mock.calls).toEqual([[NaN]]);
    expect(strings.mock.calls.map(([s]) => s)).toEqual(
      values.flatMap((v) => ['tools/call bench_echo', ...(v === '\ud800' ? [v] : []), SCOPE.name, SCOPE.version]),
    );
  });

  it('keeps keys of up to 100 characters and values of up to 64 in messages of up to 128 bytes', () => {
    const cases: [Attributes, string[]][] = [
      // Each span's attributes, and what the second time round still writes anew.
      [{ ['k'.repeat(100)]: 'v' }, []],
      [{ ['k'.repeat(101)]: 'v' }, ['k'.repeat(101), 'v']],
      [{ key: 'v'.repeat(64) }, []],
      [{ key: 'v'.repeat(65) }, ['v'.repeat(65)]],
      // Messages past one length byte: a key of 123 bytes and a value of 122.
      [{ ['é'.repeat(60)]: 'ü'.repeat(60) }, ['ü'.repeat(60)]],
      [{ ['€'.repeat(100)]: 'x' }, ['x']],
      [{ list: ['a', 'b'] }, ['a', 'b']],
    ];
    for (const [attributes] of cases) expect(ours([spanWith(attributes)])).toBe(reference([spanWith(attributes)]));
    const strings = vi.spyOn(ProtoWriter.prototype, 'string');
    for (const [attributes, anew] of cases) {
      strings.mockClear();
      expect(ours([spanWith(attributes)])).toBe(reference([spanWith(attributes)]));
      expect(strings.mock.calls.map(([s]) => s)).toEqual(['tools/call bench_echo', ...anew, SCOPE.name, SCOPE.version]);
    }
  });

  it('keeps a copy of its own of a message that the close of an enclosing event or link moved', () => {
    // An event and a link of more than 127 bytes each: closed, their bytes move one further, the
    // kept attributes' among them. Written again, the kept messages must be as first written.
    const span = {
      ...spanWith({}),
      events: [{ name: 'e'.repeat(150), time: [1, 0], attributes: { 'event.key': 'kept' }, droppedAttributesCount: 0 }],
      links: [
        {
          context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: 1 },
          attributes: { 'link.key': 'kept', pad: 'p'.repeat(100) },
          droppedAttributesCount: 0,
        },
      ],
    } as unknown as ReadableSpan;
    expect(ours([span])).toBe(reference([span]));
    expect(ours([span])).toBe(reference([span]));
    expect(ours([span, span])).toBe(reference([span, span]));
  });

  it('keeps 256 keys, the first met, and writes later ones anew, as the SDK writes them', () => {
    const many = Array.from({ length: 300 }, (_, i) => spanWith({ [`key.${i}`]: i, shared: 'x' }, i));
    expect(ours(many)).toBe(reference(many));
    const strings = vi.spyOn(ProtoWriter.prototype, 'string');
    const late = spanWith({ 'key.299': 299, 'key.0': 0 });
    expect(ours([late])).toBe(reference([late]));
    // `key.0` was met while there was room; `key.299` after (the tests above kept some keys):
    // only it is written anew.
    expect(strings.mock.calls.map(([s]) => s)).toEqual(['tools/call bench_echo', 'key.299', SCOPE.name, SCOPE.version]);
  });
});
