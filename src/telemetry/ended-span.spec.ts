import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { CompactBatchSpanProcessor } from './ended-span.js';

/** A tracer whose ended spans reach `exporter` through `Processor`. */
function tracerWith(Processor: typeof BatchSpanProcessor, exporter: InMemorySpanExporter, sampled = true) {
  const provider = new BasicTracerProvider({
    spanProcessors: [new Processor(exporter)],
    ...(sampled ? {} : { sampler: new AlwaysOffSampler() }),
  });
  return { tracer: provider.getTracer('test-scope', '1.2.3'), provider };
}

/** The same spans, ids aside: an MCP-like server span, a failed child with an event, a link. */
function makeSpans(tracer: Tracer): void {
  const parent = tracer.startSpan('tools/call echo', {
    kind: SpanKind.SERVER,
    startTime: 1_700_000_000_123.456,
    attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'client.port': 4_000 },
  });
  parent.setAttributes({ 'mcp.protocol.version': '2026-07-28' });
  const child = tracer.startSpan(
    'SELECT',
    { startTime: 1_700_000_000_123.75, links: [{ context: parent.spanContext(), attributes: { why: 'test' } }] },
    trace.setSpan(context.active(), parent),
  );
  child.addEvent('retry', { attempt: 2 }, 1_700_000_000_124);
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  child.end(1_700_000_000_124.5);
  parent.end(1_700_000_000_125.25);
}

/** Everything an exporter reads of a span, with its own and its parent's ids replaced by their order. */
function exported(spans: ReadableSpan[]) {
  const ids = new Map<string, number>();
  const id = (s?: string) => (s === undefined ? undefined : (ids.get(s) ?? ids.set(s, ids.size).get(s)));
  return spans.map((s) => ({
    name: s.name,
    kind: s.kind,
    spanId: id(s.spanContext().spanId),
    traceFlags: s.spanContext().traceFlags,
    parentSpanId: id(s.parentSpanContext?.spanId),
    startTime: s.startTime,
    endTime: s.endTime,
    duration: s.duration,
    ended: s.ended,
    status: s.status,
    attributes: s.attributes,
    links: s.links.map((l) => ({ spanId: id(l.context.spanId), attributes: l.attributes })),
    events: s.events,
    resource: s.resource.attributes,
    scope: s.instrumentationScope,
    dropped: [s.droppedAttributesCount, s.droppedEventsCount, s.droppedLinksCount],
  }));
}

describe('CompactBatchSpanProcessor', () => {
  it('exports what the batch span processor exports, field for field', async () => {
    const plain = new InMemorySpanExporter();
    const compact = new InMemorySpanExporter();
    for (const [Processor, exporter] of [
      [BatchSpanProcessor, plain],
      [CompactBatchSpanProcessor, compact],
    ] as const) {
      const { tracer, provider } = tracerWith(Processor, exporter);
      makeSpans(tracer);
      await provider.forceFlush();
    }
    expect(compact.getFinishedSpans()).toHaveLength(2);
    expect(exported(compact.getFinishedSpans())).toEqual(exported(plain.getFinishedSpans()));
    expect(exported(compact.getFinishedSpans())[1]).toMatchObject({
      name: 'tools/call echo',
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.UNSET },
      attributes: { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2026-07-28', 'client.port': 4_000 },
      links: [],
      events: [],
    });
  });

  it('drops unsampled spans, as the batch span processor does', async () => {
    const exporter = new InMemorySpanExporter();
    const { tracer, provider } = tracerWith(CompactBatchSpanProcessor, exporter, false);
    makeSpans(tracer);
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
