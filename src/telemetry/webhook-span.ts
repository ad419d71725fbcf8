import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('kadu.webhooks');

/**
 * One span per webhook delivery attempt, a child of whatever queued it when the attempt follows
 * at once (the execution's span), else of nothing. Its HTTP POST is a child span (the http
 * instrumentation), whose `traceparent` header lets the receiver continue the trace.
 */
export function traceDeliveryAttempt<T>(
  delivery: { id: string; event: string; attempts: number },
  attempt: () => Promise<T>,
): Promise<T> {
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
