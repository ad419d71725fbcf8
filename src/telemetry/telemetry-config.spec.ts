import { readTelemetryConfig } from './telemetry-config.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('readTelemetryConfig: the context manager', () => {
  it('is chosen by the runtime unless the operator names one', () => {
    expect(readTelemetryConfig(ENDPOINT).contextManager).toBe('auto');
    for (const choice of ['auto', 'promise-hooks', 'async-local-storage'])
      expect(readTelemetryConfig({ ...ENDPOINT, KADU_OTEL_CONTEXT_MANAGER: choice })).toMatchObject({
        contextManager: choice,
        problems: [],
      });
  });

  it('an unknown name is a start-up problem, not a silent default', () => {
    expect(readTelemetryConfig({ ...ENDPOINT, KADU_OTEL_CONTEXT_MANAGER: 'zones' }).problems).toEqual([
      "KADU_OTEL_CONTEXT_MANAGER: unknown context manager 'zones' (use auto, promise-hooks, async-local-storage)",
    ]);
  });
});
