import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { CompactBatchSpanProcessor } from './ended-span.js';
import { EncodingBatchSpanProcessor } from './encoding-span-processor.js';
import type { OtlpProtocol } from './telemetry-config.js';

/**
 * The OTLP/HTTP span processor and exporter of the protocol asked for (telemetry-config.ts):
 * protobuf, encoded as each span ends, unless `http/json`. Endpoint, headers, compression and
 * timeout are read from the standard variables by the exporters themselves, whichever the encoding;
 * the batch's size and delay from `OTEL_BSP_*` by the SDK's batch span processor under both.
 */
export const otlpSpanProcessor = (protocol: OtlpProtocol): SpanProcessor =>
  protocol === 'http/json' ? new CompactBatchSpanProcessor(new JsonTraceExporter()) : new EncodingBatchSpanProcessor();

export const otlpMetricExporter = (protocol: OtlpProtocol): PushMetricExporter =>
  protocol === 'http/json' ? new JsonMetricExporter() : new OTLPMetricExporter();
