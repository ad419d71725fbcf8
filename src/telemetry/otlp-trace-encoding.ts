import type { Attributes, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { writeAttributes, writeTime } from './otlp-common-encoding.js';
import { ProtoWriter } from './proto-writer.js';

/**
 * OTLP traces in protobuf (opentelemetry-proto, trace/v1/trace.proto), written in two steps: each
 * span's `Span` message when it ends (`encodeSpan`), then, at export, the request that frames the
 * batch's spans under their resource and scope (`encodeExportRequest`). The bytes are the ones
 * `@opentelemetry/otlp-transformer`'s `ProtobufTraceSerializer` writes for the same spans — same
 * fields, same order (otlp-trace-encoding.spec.ts compares them) — so a collector cannot tell.
 * Why not that serializer: it needs every span kept whole until the batch is exported, and then
 * writes each string twice (a size pass, then the bytes) (bench/RESULTS.md, issue 32, thirteenth pass).
 */

/** What the export request needs of an encoded span: its group, and where its bytes are. */
export interface EncodedSpanBytes {
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
  readonly chunk: Buffer;
  readonly start: number;
  readonly end: number;
}

const CHUNK_SIZE = 65_536;
// The trace.proto's Span flags: the W3C flags, and whether the parent's context came from afar.
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

// A span starts a new chunk when less than this is left in the current one (an MCP span takes
// ~450 bytes: bench/RESULTS.md, issue 32, twenty-first pass). A larger span grows the writer's
// buffer, which holds it and is then retired like a full chunk.
const SPAN_ROOM = 4096;
/** Writes into the current chunk, after the spans already there. */
const chunkWriter = new ProtoWriter(CHUNK_SIZE);

/**
 * Writes an ended span's `Span` message into the shared chunk of ended spans (off the JS heap) and
 * says where: once a batch is exported, nothing references its chunk and it is freed. Written in
 * place: through a scratch buffer, the copy into the chunk was an eighth of the encoding's time
 * (bench/RESULTS.md, issue 32, twenty-first pass).
 */
export function encodeSpan(span: ReadableSpan): Pick<EncodedSpanBytes, 'chunk' | 'start' | 'end'> {
  const w = chunkWriter;
  // A grown buffer is not kept as the chunk: it would pin its size, and double again.
  if (w.buf.length - w.pos < SPAN_ROOM || w.buf.length > CHUNK_SIZE) {
    w.buf = Buffer.allocUnsafeSlow(CHUNK_SIZE);
    w.pos = 0;
  }
  const start = w.pos;
  writeSpan(w, span);
  return { chunk: w.buf, start, end: w.pos };
}

/** `ExportTraceServiceRequest` for a batch: spans grouped by resource, then scope, in the order first seen. */
export function encodeExportRequest(spans: readonly EncodedSpanBytes[]): Uint8Array {
  const byResource = new Map<
    EncodedSpanBytes['resource'],
    Map<EncodedSpanBytes['instrumentationScope'], EncodedSpanBytes[]>
  >();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (!byScope) byResource.set(span.resource, (byScope = new Map()));
    let list = byScope.get(span.instrumentationScope);
    if (!list) byScope.set(span.instrumentationScope, (list = []));
    list.push(span);
  }
  const w = new ProtoWriter(
    Math.max(
      1024,
      spans.reduce((n, s) => n + s.end - s.start + 4, 1024),
    ),
  );
  for (const [resource, byScope] of byResource) {
    w.tag(1, 2); // resource_spans
    const resourceSpans = w.open();
    w.tag(1, 2); // resource
    const r = w.open();
    writeAttributes(w, resource.attributes, 1);
    w.tag(2, 0); // dropped_attributes_count
    w.varint(0);
    w.close(r);
    for (const [scope, list] of byScope) {
      w.tag(2, 2); // scope_spans
      const scopeSpans = w.open();
      writeScope(w, scope);
      for (const span of list) {
        w.tag(2, 2); // spans
        w.varint(span.end - span.start);
        w.room(span.end - span.start);
        w.pos += span.chunk.copy(w.buf, w.pos, span.start, span.end);
      }
      if (scope.schemaUrl) {
        w.tag(3, 2);
        w.string(scope.schemaUrl);
      }
      w.close(scopeSpans);
    }
    if (resource.schemaUrl) {
      w.tag(3, 2);
      w.string(resource.schemaUrl);
    }
    w.close(resourceSpans);
  }
  // A view of this request's own writer: nothing else writes there.
  return w.buf.subarray(0, w.pos);
}

function writeScope(w: ProtoWriter, scope: EncodedSpanBytes['instrumentationScope']): void {
  w.tag(1, 2);
  const at = w.open();
  w.tag(1, 2);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, 2);
    w.string(scope.version);
  }
  // Attributes of a scope: newer API versions have them; read when present.
  const extra = scope as { attributes?: Attributes; droppedAttributesCount?: number };
  if (extra.attributes) writeAttributes(w, extra.attributes, 3);
  if (extra.droppedAttributesCount) {
    w.tag(4, 0);
    w.varint(extra.droppedAttributesCount);
  }
  w.close(at);
}

function writeSpan(w: ProtoWriter, span: ReadableSpan): void {
  const ctx = span.spanContext();
  w.tag(1, 2);
  w.hex(ctx.traceId);
  w.tag(2, 2);
  w.hex(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, 2);
    w.string(traceState);
  }
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    w.tag(4, 2);
    w.hex(parent.spanId);
  }
  w.tag(5, 2);
  w.string(span.name);
  // SpanKind is offset by one on the wire: 0 there is "unspecified".
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    w.tag(6, 0);
    w.varint(kind);
  }
  w.tag(7, 1);
  writeTime(w, span.startTime);
  w.tag(8, 1);
  writeTime(w, span.endTime);
  writeAttributes(w, span.attributes, 9);
  w.tag(10, 0);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    w.tag(11, 2);
    writeEvent(w, event);
  }
  w.tag(12, 0);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) {
    w.tag(13, 2);
    writeLink(w, link);
  }
  w.tag(14, 0);
  w.varint(span.droppedLinksCount);
  w.tag(15, 2);
  writeStatus(w, span.status);
  w.tag(16, 5);
  w.fixed32(flagsOf(ctx, parent?.isRemote));
}

/** `Span.Event`: time, name, attributes, dropped count. */
function writeEvent(w: ProtoWriter, event: ReadableSpan['events'][number]): void {
  const at = w.open();
  w.tag(1, 1);
  writeTime(w, event.time);
  w.tag(2, 2);
  w.string(event.name);
  writeAttributes(w, event.attributes, 3);
  w.tag(4, 0);
  w.varint(event.droppedAttributesCount || 0);
  w.close(at);
}

/** `Span.Link`: the linked ids and trace state, attributes, dropped count, flags. */
function writeLink(w: ProtoWriter, link: ReadableSpan['links'][number]): void {
  const at = w.open();
  w.tag(1, 2);
  w.hex(link.context.traceId);
  w.tag(2, 2);
  w.hex(link.context.spanId);
  const traceState = link.context.traceState?.serialize();
  if (traceState) {
    w.tag(3, 2);
    w.string(traceState);
  }
  writeAttributes(w, link.attributes, 4);
  w.tag(5, 0);
  w.varint(link.droppedAttributesCount || 0);
  w.tag(6, 5);
  w.fixed32(flagsOf(link.context, link.context.isRemote));
  w.close(at);
}

/** `Status`: the message when there is one, then the code (always written, as the SDK's serializer does). */
function writeStatus(w: ProtoWriter, status: ReadableSpan['status']): void {
  const at = w.open();
  if (status.message) {
    w.tag(2, 2);
    w.string(status.message);
  }
  w.tag(3, 0);
  w.varint(status.code);
  w.close(at);
}

const flagsOf = (ctx: SpanContext, remote: boolean | undefined): number =>
  (ctx.traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);
