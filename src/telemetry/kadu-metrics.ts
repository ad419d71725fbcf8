import {
  type Attributes,
  type Counter,
  type Histogram,
  metrics,
  type ObservableCounter,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import { type RequestDoor, type RequestOutcome, RequestTally } from './request-tally.js';

/**
 * The app's own instruments (the MCP ones live in the module). Created on first use, after the
 * SDK was registered by `main.ts`; with no SDK they are the API's no-ops. Names follow the
 * OpenTelemetry naming rules; a Prometheus scrape shows them with `_` and unit suffixes
 * (docs/operators/operating.md, "Traces and metrics").
 */
interface Instruments {
  requests: ObservableCounter;
  requestDuration: Histogram;
  executions: Counter;
  webhookAttempts: Counter;
  queueDepth: ObservableGauge;
}

let instruments: Instruments | undefined;

function get(): Instruments {
  if (instruments) return instruments;
  const meter = metrics.getMeter('kadu');
  instruments = {
    requests: meter.createObservableCounter('kadu.requests', {
      unit: '{request}',
      description:
        'HTTP requests answered, by door (mcp, api, other) and outcome (ok, tool_error, refused, rate_limited, unavailable, error).',
    }),
    requestDuration: meter.createHistogram('http.server.request.duration', {
      unit: 's',
      description: 'Duration of HTTP server requests (OpenTelemetry HTTP semantic conventions).',
      advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
    }),
    executions: meter.createCounter('kadu.executions.finished', {
      unit: '{execution}',
      description:
        'Executions that reached an outcome, by status (succeeded, failed, canceled, awaiting_input) and error code.',
    }),
    webhookAttempts: meter.createCounter('kadu.webhooks.attempts', {
      unit: '{attempt}',
      description: 'Webhook delivery attempts, by outcome (delivered, retry, failed).',
    }),
    queueDepth: meter.createObservableGauge('kadu.executions.queue.depth', {
      unit: '{execution}',
      description: 'Executions waiting for a worker (all replicas).',
    }),
  };
  instruments.requests.addCallback((result) => requestTally.observe(result));
  return instruments;
}

export type { RequestDoor, RequestOutcome };

/**
 * `kadu.requests` is counted here and read by the SDK at each collection (an observable counter:
 * the same monotonic sum, name and labels as a synchronous counter). A synchronous `add` hashed its
 * label set on every request — one of the three metric records each call paid (bench/RESULTS.md,
 * "Issue 32, third pass": the metrics SDK ~10 µs per call).
 */
const requestTally = new RequestTally();

export function recordRequest(door: RequestDoor, outcome: RequestOutcome, seconds: number, http: Attributes): void {
  const i = get();
  requestTally.add(door, outcome);
  i.requestDuration.record(seconds, http);
}

export function recordExecutionOutcome(status: string, errorCode?: string): void {
  get().executions.add(1, { 'kadu.execution.status': status, ...(errorCode ? { 'error.type': errorCode } : {}) });
}

export function recordWebhookAttempt(outcome: 'delivered' | 'retry' | 'failed', httpStatus?: number): void {
  get().webhookAttempts.add(1, {
    'kadu.webhook.outcome': outcome,
    ...(httpStatus ? { 'http.response.status_code': httpStatus } : {}),
  });
}

/** Observes the queue depth at each collection until the returned function is called. */
export function observeQueueDepth(depth: () => Promise<number>): () => void {
  const gauge = get().queueDepth;
  const callback = async (result: ObservableResult): Promise<void> => {
    // A queue that cannot be reached is not observed rather than holding up the collection.
    const value = await Promise.race([
      depth(),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000).unref()),
    ]).catch(() => undefined);
    if (value !== undefined) result.observe(value);
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
