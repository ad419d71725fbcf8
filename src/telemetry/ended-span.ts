import { type SpanContext, SpanStatusCode, type SpanStatus, TraceFlags } from '@opentelemetry/api';
import { hrTimeDuration } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';

const NO_LINKS: ReadableSpan['links'] = Object.freeze([]) as unknown as ReadableSpan['links'];
const NO_EVENTS: ReadableSpan['events'] = Object.freeze([]) as unknown as ReadableSpan['events'];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/**
 * What an exporter reads of an ended span, and nothing else: the SDK's span also holds its
 * processor, limits, clock offsets and an end-metrics closure, and a batch keeps every span until
 * 512 are queued — long enough to be copied by the young-generation collector, once or twice.
 * Same fields, same objects (attributes, times, ids are shared, not copied); empty links and
 * events and an unset status are shared constants, and the duration is worked out when read (only
 * the console exporter reads it), as the SDK works it out at the end. 1 009 → 571 bytes kept per
 * MCP span (bench/RESULTS.md, issue 32, eighth pass, tracing).
 */
class EndedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: ReadableSpan['kind'];
  readonly parentSpanContext: SpanContext | undefined;
  readonly startTime: ReadableSpan['startTime'];
  readonly endTime: ReadableSpan['endTime'];
  readonly status: SpanStatus;
  readonly attributes: ReadableSpan['attributes'];
  readonly links: ReadableSpan['links'];
  readonly events: ReadableSpan['events'];
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount: number;
  private readonly context: SpanContext;

  constructor(span: ReadableSpan) {
    this.name = span.name;
    this.kind = span.kind;
    this.context = span.spanContext();
    this.parentSpanContext = span.parentSpanContext;
    this.startTime = span.startTime;
    this.endTime = span.endTime;
    this.status = span.status.code === SpanStatusCode.UNSET && span.status.message === undefined ? UNSET : span.status;
    this.attributes = span.attributes;
    this.links = span.links.length ? span.links : NO_LINKS;
    this.events = span.events.length ? span.events : NO_EVENTS;
    this.resource = span.resource;
    this.instrumentationScope = span.instrumentationScope;
    this.droppedAttributesCount = span.droppedAttributesCount;
    this.droppedEventsCount = span.droppedEventsCount;
    this.droppedLinksCount = span.droppedLinksCount;
  }

  /** As `Span.end` has it: an end before the start was already moved to the start. */
  get duration(): ReadableSpan['duration'] {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  get ended(): boolean {
    return true;
  }

  spanContext(): SpanContext {
    return this.context;
  }
}

/** The SDK's batch span processor (same `OTEL_BSP_*` settings), queueing ended spans as `EndedSpan`s. */
export class CompactBatchSpanProcessor extends BatchSpanProcessor {
  override onEnd(span: ReadableSpan): void {
    // An unsampled span is dropped by the batch processor: nothing to make for it.
    super.onEnd(span.spanContext().traceFlags & TraceFlags.SAMPLED ? new EndedSpan(span) : span);
  }
}
