import type { HrTime, SpanContext } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { encodeExportRequest, encodeSpan } from './otlp-trace-encoding.js';

/** Each span encoded on its own, as spans end, with the group the export request frames it in. */
const written = (spans: ReadableSpan[]) =>
  spans.map((s) => ({ resource: s.resource, instrumentationScope: s.instrumentationScope, ...encodeSpan(s) }));
/** The request as this encoding writes it: each span encoded on its own, then the batch framed. */
const encoded = (spans: ReadableSpan[]): Buffer => Buffer.from(encodeExportRequest(written(spans)));
const reference = (spans: ReadableSpan[]): Buffer => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);

const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${n}}$`));
// Mostly hex, as the SDK makes them; but a link's context is not checked by the SDK, so any text
// too (odd lengths, other characters, astral planes and lone surrogates).
const id = (n: number) =>
  fc.oneof(
    { weight: 4, arbitrary: hex(n) },
    fc.string({ maxLength: n + 1 }),
    fc.string({ unit: 'binary', maxLength: n }),
  );
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }), // astral planes and lone surrogates
  fc.string({ minLength: 120, maxLength: 400 }), // lengths of two varint bytes
);
const primitive = fc.oneof(
  text,
  fc.boolean(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(2 ** 53, 2 ** 60, -(2 ** 63), 2 ** 63, -0, 0x7fffffff, 0xffffffff, 2 ** 32),
  fc.double(),
);
// What the SDK lets through (primitives, arrays of them) and what an event may still carry.
const value = fc.oneof(
  primitive,
  fc.array(fc.option(primitive, { nil: undefined })),
  fc.uint8Array({ maxLength: 8 }),
  fc.dictionary(fc.string({ maxLength: 6 }), primitive, { maxKeys: 3 }),
  fc.constant(undefined),
  fc.constant(null),
);
const attributes = fc.dictionary(text, value, { maxKeys: 6 });
const time: fc.Arbitrary<HrTime> = fc.tuple(
  fc.integer({ min: 0, max: 2 ** 34 }),
  fc.integer({ min: 0, max: 999_999_999 }),
);
const traceState = fc.option(
  text.map((s) => ({ serialize: () => s })),
  { nil: undefined },
);
const context: fc.Arbitrary<SpanContext> = fc.record(
  { traceId: id(32), spanId: id(16), traceFlags: fc.integer({ min: 0, max: 255 }), isRemote: fc.boolean() },
  { requiredKeys: ['traceId', 'spanId', 'traceFlags'] },
);
// Events and links as an exporter may meet them: their attributes are not sanitized by the SDK.
const event = fc.record(
  { name: text, time, attributes, droppedAttributesCount: fc.nat() },
  { requiredKeys: ['name', 'time'] },
);
const link = fc.record(
  {
    context: fc
      .tuple(context, traceState)
      .map(([c, ts]) => ({ ...c, ...(ts ? { traceState: ts } : {}) }) as SpanContext),
    attributes,
    droppedAttributesCount: fc.nat(),
  },
  { requiredKeys: ['context'] },
);
const resources = [
  { attributes: { 'service.name': 'kadu', 'telemetry.sdk.language': 'nodejs' } },
  { attributes: { 'service.name': 'other', n: 3, ok: true }, schemaUrl: 'https://opentelemetry.io/schemas/1.28.0' },
];
const scopes = [
  { name: '@kobana/nest-mcp', version: '1.0.0' },
  { name: 'kadu.http' },
  { name: 'scoped', version: '2', schemaUrl: 'https://example.test/schema' },
];

const span: fc.Arbitrary<ReadableSpan> = fc
  .record({
    context: fc.tuple(context, traceState),
    parent: fc.option(
      fc.record({ spanId: fc.oneof(id(16), fc.constant('')), isRemote: fc.option(fc.boolean(), { nil: undefined }) }),
      { nil: undefined },
    ),
    name: text,
    kind: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    startTime: time,
    endTime: time,
    attributes,
    events: fc.array(event, { maxLength: 3 }),
    links: fc.array(link, { maxLength: 3 }),
    status: fc.record({ code: fc.integer({ min: 0, max: 2 }), message: fc.option(text, { nil: undefined }) }),
    dropped: fc.tuple(fc.nat(), fc.nat(), fc.nat()),
    resource: fc.constantFrom(...resources),
    scope: fc.constantFrom(...scopes),
  })
  .map(
    (s) =>
      ({
        spanContext: () => ({ ...s.context[0], ...(s.context[1] ? { traceState: s.context[1] } : {}) }),
        parentSpanContext: s.parent,
        name: s.name,
        kind: s.kind,
        startTime: s.startTime,
        endTime: s.endTime,
        attributes: s.attributes,
        events: s.events,
        links: s.links,
        status: s.status,
        droppedAttributesCount: s.dropped[0],
        droppedEventsCount: s.dropped[1],
        droppedLinksCount: s.dropped[2],
        resource: s.resource,
        instrumentationScope: s.scope,
      }) as unknown as ReadableSpan,
  );

describe('OTLP trace encoding (protobuf)', () => {
  it('writes the bytes the SDK serializer writes, for any batch of spans', async () => {
    await checkProperty(
      'OTLP trace encoding equals the SDK serializer',
      fc.property(fc.array(span, { maxLength: 8 }), (spans) => {
        expect(encoded(spans).toString('hex')).toBe(reference(spans).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('frames a batch of MCP-like spans, 512 of them and past one 64 kB chunk, as the SDK serializer does', () => {
    const spans = fc.sample(span, { numRuns: 512, seed: 32 });
    const bytes = encoded(spans);
    expect(bytes.length).toBeGreaterThan(65_536);
    expect(bytes.equals(reference(spans))).toBe(true);
    // Written into 64 kB chunks, a new one once the last is nearly full: none grows, none is kept forever.
    const chunks = new Set(written(spans).map((s) => s.chunk));
    expect(chunks.size).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBe(65_536);
  });

  it('writes a span larger than a whole chunk between smaller ones, each read back from the chunk it was written in', () => {
    const around = fc.sample(span, { numRuns: 300, seed: 11 });
    const [big] = fc.sample(span, { numRuns: 1, seed: 5 });
    const largeSpan = { ...big, attributes: { long: 'y'.repeat(100_000) } } as unknown as ReadableSpan;
    // Written one at a time as spans end, before the batch that frames them: the large one grows a
    // buffer of its own, and the spans written before and after it must still read as they were.
    const batch = [...around.slice(0, 150), largeSpan, ...around.slice(150)];
    const spans = written(batch);
    const [before, large, after] = spans.slice(149, 152);
    // Larger than a whole chunk, so not in the chunk the spans before it share; the next span starts
    // a chunk of the usual size rather than filling what the large one grew.
    expect(large.end - large.start).toBeGreaterThan(65_536);
    expect(large.chunk).not.toBe(before.chunk);
    expect(after.chunk).not.toBe(large.chunk);
    expect(after.chunk.length).toBe(65_536);
    expect(Buffer.from(encodeExportRequest(spans)).equals(reference(batch))).toBe(true);
  });

  it('writes a span whose message needs a three-byte length, and an empty batch', () => {
    const [big] = fc.sample(span, { numRuns: 1, seed: 7 });
    const long = { ...big, attributes: { long: 'x'.repeat(70_000) } } as unknown as ReadableSpan;
    expect(encoded([long]).equals(reference([long]))).toBe(true);
    expect(encoded([]).length).toBe(0);
    expect(reference([]).length).toBe(0);
  });
});
