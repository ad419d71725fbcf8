import { noTelemetry, readTelemetryConfig, telemetryEnabled } from './telemetry/telemetry-config.js';
import { describeValue } from '@kobana/nest-mcp';

/**
 * The process: telemetry first — the instrumentations must hook modules before the app loads
 * them, so the OpenTelemetry SDK is loaded (only when configured) and the app afterwards,
 * dynamically. Shared by `main.ts` (the unbundled build) and the production bundle's entry
 * (`src/bundle/entry.ts`, scripts/bundle.mjs), which cannot use top-level await. Resolves once
 * the app listens; a failure to start is one line on stderr and exit 1.
 */
export async function runKaduProcess(): Promise<void> {
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
}
