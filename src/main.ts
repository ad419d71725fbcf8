// Entry point. Telemetry first: the instrumentations must hook modules before the app loads them,
// so this file loads the OpenTelemetry SDK (only when configured) and the app afterwards, dynamically.
// The young generation is held small through start-up (lifecycle/startup-heap.ts): first import.
import './lifecycle/startup-heap.js';
import { noTelemetry, readTelemetryConfig, telemetryEnabled } from './telemetry/telemetry-config.js';
import { describeValue } from '@kobana/nest-mcp';

try {
  const config = readTelemetryConfig(process.env);
  const telemetry =
    telemetryEnabled(config) && !config.problems.length
      ? await (await import('./telemetry/otel-sdk.js')).startTelemetry(config)
      : noTelemetry(config);
  const { launch } = await import('./launch.js');
  await launch(telemetry);
} catch (error) {
  process.stderr.write(
    `Kadu cannot start: ${error instanceof Error ? error.message.split('\n')[0] : describeValue(error)}\n`,
  );
  process.exit(1);
}
