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
    // The checks go first (they load ioredis: after telemetry too), and get two turns of the event
    // loop: connections to addresses are then under way (a name's lookup is, on libuv's threads),
    // and PostgreSQL starts the probes' server processes while the app's modules load (~200 ms of
    // CPU on a small machine; bench/RESULTS.md, issue 32, thirty-first pass).
    const { launchChecks } = await import('./lifecycle/launch-checks.js');
    const early = launchChecks(telemetry.config, process.env);
    await nextTurn();
    await nextTurn();
    const { launch } = await import('./launch.js');
    let checks = await early;
    // The probes' bounds ran while the modules loaded: a refusal comes from checks that had their
    // whole bound, so failing ones are made again (a healthy start never pays for this).
    if (checks.problems.length) checks = await launchChecks(telemetry.config, process.env);
    await launch(telemetry, checks);
  } catch (error) {
    process.stderr.write(
      `Kadu cannot start: ${error instanceof Error ? error.message.split('\n')[0] : describeValue(error)}\n`,
    );
    process.exit(1);
  }
}

/** Resolves after the event loop's next poll for I/O (an immediate runs after it). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
