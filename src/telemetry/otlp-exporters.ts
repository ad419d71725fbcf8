import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { OtlpProtocol } from './telemetry-config.js';

/**
 * The OTLP/HTTP exporters of the protocol asked for (telemetry-config.ts): protobuf unless
 * `http/json`. Endpoint, headers, compression and timeout are read from the standard variables by
 * the exporters themselves, whichever the encoding.
 */
export const otlpTraceExporter = (protocol: OtlpProtocol): SpanExporter =>
  protocol === 'http/json' ? new JsonTraceExporter() : new OTLPTraceExporter();

export const otlpMetricExporter = (protocol: OtlpProtocol): PushMetricExporter =>
  protocol === 'http/json' ? new JsonMetricExporter() : new OTLPMetricExporter();
