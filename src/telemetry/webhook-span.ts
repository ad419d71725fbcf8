import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('kadu.webhooks');

/**
 * The W3C `traceparent` of the active span, kept with a delivery when it is queued (null when no
 * span is active or tracing is off): its attempts are then spans of the trace that queued it.
 */
export function queuingTraceParent(): string | null {
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs a delivery pass in no trace: a pass claims due deliveries of every organisation, whoever
 * asked for it (an execution's outcome, a replay request); each attempt then takes its own
 * delivery's trace (`traceDeliveryAttempt`), never the caller's.
 */
export function inNoTrace<T>(pass: () => T): T {
  return context.with(ROOT_CONTEXT, pass);
}

/**
 * One span per webhook delivery attempt, a child of the span that queued the delivery (its
 * `trace_parent`), retries included, whichever pass makes it; each attempt of a delivery queued
 * outside any trace (or before the column existed) starts a trace of its own. Its HTTP POST is a child span (the http instrumentation), whose
 * `traceparent` header lets the receiver continue the trace.
 */
export function traceDeliveryAttempt<T>(
  delivery: { id: string; event: string; attempts: number; trace_parent: string | null },
  attempt: () => Promise<T>,
): Promise<T> {
  const parent = delivery.trace_parent
    ? propagation.extract(ROOT_CONTEXT, { traceparent: delivery.trace_parent })
    : ROOT_CONTEXT;
  return tracer.startActiveSpan(
    'deliver webhook',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'kadu.webhook.delivery_id': delivery.id,
        'kadu.webhook.event': delivery.event,
        'kadu.webhook.attempt': delivery.attempts + 1,
      },
    },
    parent,
    async (span) => {
      try {
        return await attempt();
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
