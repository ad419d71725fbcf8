import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ExecutionQueue, QueuedRun } from '../executions/execution-queue.js';
import { observeQueueDepth } from './kadu-metrics.js';

const tracer = trace.getTracer('kadu.executions');
const messaging = (system: string, operation: 'send' | 'process', executionId: string) => ({
  'messaging.system': system,
  'messaging.operation.type': operation,
  'messaging.destination.name': 'executions',
  'kadu.execution.id': executionId,
});

/**
 * The execution queue, traced (messaging conventions): queuing is a PRODUCER span of the request
 * that ran the task, and its context travels with the work; running it is a CONSUMER span in a
 * trace of its own, linked to that request — an execution may run minutes later, on another
 * replica. Also observes the queue depth for the metrics.
 */
export class TracedExecutionQueue implements ExecutionQueue {
  private readonly stopObserving: () => void;

  constructor(
    private readonly inner: ExecutionQueue,
    private readonly system: 'bullmq' | 'in_process',
  ) {
    this.stopObserving = observeQueueDepth(() => inner.depth());
  }

  enqueue(executionId: string): Promise<void> {
    return tracer.startActiveSpan(
      'send executions',
      { kind: SpanKind.PRODUCER, attributes: messaging(this.system, 'send', executionId) },
      async (span) => {
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        try {
          await this.inner.enqueue(executionId, Object.keys(carrier).length ? carrier : undefined);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  start(worker: (run: QueuedRun) => Promise<void>, concurrency: number): Promise<void> {
    return this.inner.start((run) => {
      const origin = run.trace ? trace.getSpanContext(propagation.extract(ROOT_CONTEXT, run.trace)) : undefined;
      return tracer.startActiveSpan(
        'process executions',
        {
          kind: SpanKind.CONSUMER,
          root: true,
          links: origin ? [{ context: origin }] : [],
          attributes: {
            ...messaging(this.system, 'process', run.executionId),
            'kadu.execution.redelivered': run.redelivered,
          },
        },
        async (span) => {
          try {
            await worker(run);
          } finally {
            span.end();
          }
        },
      );
    }, concurrency);
  }

  async stop(): Promise<void> {
    this.stopObserving();
    await this.inner.stop();
  }

  depth(): Promise<number> {
    return this.inner.depth();
  }

  isHeld(executionId: string): Promise<boolean> {
    return this.inner.isHeld(executionId);
  }

  ensureQueued(executionId: string): Promise<boolean> {
    return this.inner.ensureQueued(executionId);
  }
}
