/**
 * Which telemetry runs, from the standard OpenTelemetry variables only. Everything is off unless
 * asked for: no variable set means no SDK at all (the `@opentelemetry/api` calls stay no-ops).
 *
 * - Traces: `OTEL_TRACES_EXPORTER` (`otlp`, `console`, `none`); unset, OTLP when an OTLP endpoint
 *   is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
 * - Metrics: `OTEL_METRICS_EXPORTER` (`otlp`, `prometheus`, `console`, `none`, comma-separated);
 *   unset, OTLP when an OTLP endpoint is set. Prometheus text is served on its own listener,
 *   `OTEL_EXPORTER_PROMETHEUS_HOST`:`OTEL_EXPORTER_PROMETHEUS_PORT` (127.0.0.1:9464), never on the
 *   public port.
 * - OTLP's encoding: `OTEL_EXPORTER_OTLP_PROTOCOL` (per signal `…_TRACES_PROTOCOL`,
 *   `…_METRICS_PROTOCOL`), `http/protobuf` (the specification's default) or `http/json`.
 * - How the active span is carried through a request's asynchronous work: `KADU_OTEL_CONTEXT_MANAGER`
 *   (`auto`, `promise-hooks`, `async-local-storage`; promise-hook-context-manager.ts).
 * - `OTEL_SDK_DISABLED=true` turns everything off; `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 *   `OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_HEADERS`… are read by the SDK as usual.
 */
export type OtlpProtocol = 'http/protobuf' | 'http/json';
/** `auto`: Node's `AsyncLocalStorage` where it costs no promise hook, else the promise-hook manager. */
export type ContextManagerChoice = 'auto' | 'promise-hooks' | 'async-local-storage';
const CONTEXT_MANAGERS: readonly ContextManagerChoice[] = ['auto', 'promise-hooks', 'async-local-storage'];

export interface TelemetryConfig {
  readonly traces: 'otlp' | 'console' | undefined;
  /** How OTLP is encoded, per signal. */
  readonly protocol: { readonly traces: OtlpProtocol; readonly metrics: OtlpProtocol };
  readonly metrics: {
    readonly otlp: boolean;
    readonly console: boolean;
    readonly prometheus?: { readonly host: string; readonly port: number };
  };
  readonly serviceName: string;
  readonly metricIntervalMs: number;
  readonly contextManager: ContextManagerChoice;
  /** Problems of these variables, reported with the rest of the configuration at start-up. */
  readonly problems: readonly string[];
}

export function readTelemetryConfig(env: NodeJS.ProcessEnv): TelemetryConfig {
  const problems: string[] = [];
  const off: TelemetryConfig = {
    traces: undefined,
    protocol: { traces: 'http/protobuf', metrics: 'http/protobuf' },
    metrics: { otlp: false, console: false },
    serviceName: 'kadu',
    metricIntervalMs: 60_000,
    contextManager: 'auto',
    problems,
  };
  if (env.OTEL_SDK_DISABLED === 'true') return off;
  const list = (name: string, allowed: string[]): string[] | undefined => {
    const value = env[name]?.trim();
    if (!value) return undefined;
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = items.filter((i) => !allowed.includes(i));
    if (unknown.length)
      problems.push(`${name}: unsupported exporter(s) ${unknown.join(', ')} (use ${allowed.join(', ')})`);
    return items;
  };
  const otlpTraces = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const otlpMetrics = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  const traces = list('OTEL_TRACES_EXPORTER', ['otlp', 'console', 'none']) ?? (otlpTraces ? ['otlp'] : []);
  const metrics =
    list('OTEL_METRICS_EXPORTER', ['otlp', 'prometheus', 'console', 'none']) ?? (otlpMetrics ? ['otlp'] : []);
  const port = env.OTEL_EXPORTER_PROMETHEUS_PORT ?? '9464';
  if (metrics.includes('prometheus') && !/^\d{1,5}$/.test(port))
    problems.push(`OTEL_EXPORTER_PROMETHEUS_PORT must be a port number, got '${port}'`);
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000);
  if (!Number.isFinite(interval) || interval < 100)
    problems.push(
      `OTEL_METRIC_EXPORT_INTERVAL must be a number of milliseconds, got '${env.OTEL_METRIC_EXPORT_INTERVAL}'`,
    );
  const contextManagerName = (env.KADU_OTEL_CONTEXT_MANAGER?.trim() || 'auto') as ContextManagerChoice;
  const contextManager = CONTEXT_MANAGERS.includes(contextManagerName) ? contextManagerName : 'auto';
  if (contextManager !== contextManagerName)
    problems.push(
      `KADU_OTEL_CONTEXT_MANAGER: unknown context manager '${contextManagerName}' (use ${CONTEXT_MANAGERS.join(', ')})`,
    );
  return {
    protocol: {
      traces: protocolOf(env, 'TRACES', traces.includes('otlp') ? problems : []),
      metrics: protocolOf(env, 'METRICS', metrics.includes('otlp') ? problems : []),
    },
    traces: traces.includes('otlp') ? 'otlp' : traces.includes('console') ? 'console' : undefined,
    metrics: {
      otlp: metrics.includes('otlp'),
      console: metrics.includes('console'),
      prometheus: metrics.includes('prometheus')
        ? { host: env.OTEL_EXPORTER_PROMETHEUS_HOST || '127.0.0.1', port: Number(port) }
        : undefined,
    },
    serviceName: env.OTEL_SERVICE_NAME || 'kadu',
    metricIntervalMs: Number.isFinite(interval) && interval >= 100 ? interval : 60_000,
    contextManager,
    problems,
  };
}

/**
 * The OTLP encoding of one signal (its problems reported only when it is exported over OTLP).
 * Protobuf by default, as the specification says: under half the JSON's encoding work per span and
 * under half its bytes (bench/RESULTS.md, issue 32, tracing).
 */
function protocolOf(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS', problems: string[]): OtlpProtocol {
  const name = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = env[name]?.trim() || 'http/protobuf';
  if (value === 'http/protobuf' || value === 'http/json') return value;
  problems.push(`${name}: unsupported protocol '${value}' (use http/protobuf or http/json)`);
  return 'http/protobuf';
}

export const telemetryEnabled = (c: TelemetryConfig): boolean =>
  Boolean(c.traces || c.metrics.otlp || c.metrics.console || c.metrics.prometheus);

/** What runs, for the banner and the shutdown. */
export interface Telemetry {
  readonly config: TelemetryConfig;
  /** The Prometheus scrape URL once `serveMetrics` listened. */
  metricsUrl?: string;
  /** Starts the Prometheus listener (after the start-up checks, which check its port). */
  serveMetrics(): Promise<void>;
  /** Flushes and stops exporters and the metrics listener. */
  shutdown(): Promise<void>;
}

export const noTelemetry = (config: TelemetryConfig): Telemetry => ({
  config,
  serveMetrics: async () => undefined,
  shutdown: async () => undefined,
});
