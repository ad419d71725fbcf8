import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { bannerLines } from './banner.js';
import { createKaduApp } from './bootstrap.js';
import { ListenStreams } from '@kobana/nest-mcp';
import { disableAllocationSitePretenuring } from './lifecycle/gc-tuning.js';
import { installGracefulShutdown } from './lifecycle/graceful-shutdown.js';
import type { LaunchChecks } from './lifecycle/launch-checks.js';
import { releaseYoungGeneration } from './lifecycle/startup-heap.js';
import { startupFailureText } from './lifecycle/startup-failure.js';
import { PinoNestLogger } from './logging/nest-logger.js';
import { createRootLogger, preparePrettyLogs } from './logging/root-logger.js';
import type { Telemetry } from './telemetry/telemetry-config.js';

/**
 * The process, once telemetry is set up and the configuration checked (kadu-process.ts,
 * lifecycle/launch-checks.ts): every problem one line on stderr, exit 1, within seconds and before
 * anything is opened; else the app, its listener, the metrics listener, the banner and the graceful
 * shutdown.
 */
export async function launch(
  telemetry: Telemetry,
  checks: LaunchChecks,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  disableAllocationSitePretenuring();
  if (!checks.config) refuse(checks.problems);
  const config = checks.config;

  await preparePrettyLogs(config.logFormat);
  const logger = createRootLogger({ level: config.logLevel, format: config.logFormat });
  let app;
  try {
    app = await createKaduApp(config, new PinoNestLogger(logger), [], {
      accessLog: logger.child({ context: 'Access' }),
      requests: true,
    });
    await app.listen(config.port, config.host);
    releaseYoungGeneration();
    await telemetry.serveMetrics();
  } catch (error) {
    refuse([`cannot start: ${startupFailureText(error)}`]);
  }
  installGracefulShutdown({
    app,
    logger,
    timeoutMs: config.shutdownTimeoutMs,
    // Open listen streams would hold the drain until the bound: each gets its end result first.
    before: () => app.get(ListenStreams).endAll(),
    after: () => telemetry.shutdown(),
  });
  const address = app.getHttpServer().address() as AddressInfo;
  const traces =
    telemetry.config.traces === 'otlp'
      ? `OTLP to ${env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT}`
      : telemetry.config.traces;
  const banner = bannerLines({
    config,
    env,
    listening: { host: config.host, port: address.port },
    metricsUrl: telemetry.metricsUrl,
    traces,
  });
  for (const line of banner) logger.info({ context: 'Kadu' }, line);
}

/** One line per problem on stderr, and a non-zero exit. */
function refuse(problems: readonly string[]): never {
  for (const problem of problems) process.stderr.write(`Kadu cannot start: ${problem}\n`);
  process.exit(1);
}
