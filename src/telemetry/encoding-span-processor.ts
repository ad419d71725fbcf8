import { type SpanContext, TraceFlags } from '@opentelemetry/api';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { encodeExportRequest, encodeSpan, type EncodedSpanBytes } from './otlp-trace-encoding.js';

/** Only sampled spans are queued: the one context the batch processor reads of a queued span. */
const SAMPLED: SpanContext = Object.freeze({ traceId: '', spanId: '', traceFlags: TraceFlags.SAMPLED });

/** An ended span as its `Span` message's bytes (otlp-trace-encoding.ts) and the group it is framed in. */
class EncodedSpan implements EncodedSpanBytes {
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
  readonly chunk: Buffer;
  readonly start: number;
  readonly end: number;

  constructor(span: ReadableSpan) {
    this.resource = span.resource;
    this.instrumentationScope = span.instrumentationScope;
    ({ chunk: this.chunk, start: this.start, end: this.end } = encodeSpan(span));
  }

  spanContext(): SpanContext {
    return SAMPLED;
  }
}

/**
 * OTLP/HTTP in protobuf, the default (telemetry-config.ts): the SDK's batch span processor (its
 * `OTEL_BSP_*` settings, timers, limits, flush and shutdown) queueing each sampled span as its
 * encoded bytes, and the OTLP HTTP exporter's transport (`OTEL_EXPORTER_OTLP_*`: endpoint, headers,
 * compression, timeout, retries) sending them framed. A batch waits for 512 spans, longer than the
 * young generation lives under load: queued whole, every span was copied by the collector, then
 * promoted — 146 kB per scavenge; queued as bytes, 20 kB (bench/RESULTS.md, issue 32, thirteenth pass).
 */
export class EncodingBatchSpanProcessor extends BatchSpanProcessor {
  constructor(config?: ConstructorParameters<typeof BatchSpanProcessor>[1]) {
    // The processor hands its exporter what it queued: encoded spans, which this exporter frames.
    super(encodedSpanExporter() as unknown as SpanExporter, config);
  }

  override onEnd(span: ReadableSpan): void {
    if (span.spanContext().traceFlags & TraceFlags.SAMPLED)
      super.onEnd(new EncodedSpan(span) as unknown as ReadableSpan);
  }
}

/** What `@opentelemetry/exporter-trace-otlp-proto`'s exporter is, with the request framed from encoded spans. */
function encodedSpanExporter(): OTLPExporterBase<readonly EncodedSpanBytes[]> {
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
      { serializeRequest: encodeExportRequest, deserializeResponse: ProtobufTraceSerializer.deserializeResponse },
      'otlp_http_span_exporter',
      { name: 'span', countItems: (spans) => spans.length },
      undefined,
    ),
  );
}
