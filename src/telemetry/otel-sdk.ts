import { createServer, type Server } from 'node:http';
import { register } from 'node:module';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  createAllowListAttributesProcessor,
  MeterProvider,
  type MetricReader,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { ConsoleSpanExporter, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { memoiseAttributeHashes } from './attribute-hash-memo.js';
import { CompactBatchSpanProcessor } from './ended-span.js';
import { otlpMetricExporter, otlpSpanProcessor } from './otlp-exporters.js';
import { contextManagerFor } from './promise-hook-context-manager.js';
import { PooledRandomIdGenerator } from './random-ids.js';
import { noTelemetry, type Telemetry, type TelemetryConfig, telemetryEnabled } from './telemetry-config.js';

/**
 * Outgoing requests go to addresses others choose (webhook URLs, Client ID Metadata Documents):
 * their duration histogram keeps only the labels whose values are bounded — never `server.address`
 * or `server.port`, which would add a series per host a tenant or an anonymous client names.
 */
const BOUNDED_VIEWS = [
  {
    instrumentName: 'http.client.request.duration',
    attributesProcessors: [
      createAllowListAttributesProcessor([
        'http.request.method',
        'http.response.status_code',
        'error.type',
        'network.protocol.version',
      ]),
    ],
  },
];

/**
 * Starts the OpenTelemetry SDK when the configuration asks for it — before the app's modules are
 * loaded, so the instrumentations can hook them: `main.ts` imports the app only after this.
 * Redis commands (ioredis, used by the state store and BullMQ) and outgoing HTTP (webhook
 * deliveries, JWKS) are auto-instrumented; the database, the queue and the MCP and REST requests
 * are traced by the app and the module themselves.
 */
export async function startTelemetry(config: TelemetryConfig): Promise<Telemetry> {
  if (!telemetryEnabled(config) || config.problems.length) return noTelemetry(config);

  // ESM: the loader hook that lets instrumentations patch modules imported from now on.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const resource = resourceFromAttributes({ 'service.name': config.serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const tracerProvider = config.traces
    ? new NodeTracerProvider({
        resource,
        idGenerator: new PooledRandomIdGenerator(),
        // Ended spans wait in the batch as their protobuf bytes (encoding-span-processor.ts), or as
        // what the JSON and console exporters read only (ended-span.ts).
        spanProcessors: [
          config.traces === 'otlp'
            ? otlpSpanProcessor(config.protocol.traces)
            : new CompactBatchSpanProcessor(new ConsoleSpanExporter()),
        ],
      })
    : undefined;
  // W3C trace context and baggage propagators, and the context manager for this Node
  // (promise-hook-context-manager.ts).
  tracerProvider?.register({ contextManager: contextManagerFor(config.contextManager) });

  const readers: MetricReader[] = [];
  if (config.metrics.otlp)
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: otlpMetricExporter(config.protocol.metrics),
        exportIntervalMillis: config.metricIntervalMs,
      }),
    );
  if (config.metrics.console)
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new ConsoleMetricExporter(),
        exportIntervalMillis: config.metricIntervalMs,
      }),
    );
  const prometheus = config.metrics.prometheus ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  if (prometheus) readers.push(prometheus);
  // Before any instrument exists: their storages take the hash function when they are built.
  if (readers.length) memoiseAttributeHashes();
  const meterProvider = readers.length ? new MeterProvider({ resource, readers, views: BOUNDED_VIEWS }) : undefined;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider);

  registerInstrumentations({
    tracerProvider,
    meterProvider,
    instrumentations: [
      // Incoming requests are traced by the app (REST) and the module (MCP); only calls out here.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: () => true,
        requireParentforOutgoingSpans: true,
        disableIncomingRequestInstrumentation: true,
      }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  await waitForAllMessagesAcknowledged();

  let server: Server | undefined;
  const telemetry: Telemetry = {
    config,
    async serveMetrics() {
      const target = config.metrics.prometheus;
      if (!prometheus || !target) return;
      server = createServer((req, res) => {
        if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?')))
          prometheus.getMetricsRequestHandler(req, res);
        else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: the metrics are at /metrics\n');
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(target.port, target.host, resolve);
      });
      const port = (server.address() as { port: number }).port;
      telemetry.metricsUrl = `http://${target.host.includes(':') ? `[${target.host}]` : target.host}:${port}/metrics`;
    },
    async shutdown() {
      server?.close();
      server?.closeAllConnections();
      await Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
    },
  };
  return telemetry;
}
