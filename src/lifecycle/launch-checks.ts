import { describeValue } from '@kobana/nest-mcp';
import { type AppConfig, ConfigError, loadConfig } from '../config/app-config.js';
import { startupProblems } from '../config/startup-check.js';
import type { TelemetryConfig } from '../telemetry/telemetry-config.js';

/** The configuration to start with, or every reason not to (one line each). */
export type LaunchChecks = { config: AppConfig; problems: readonly [] } | { config?: undefined; problems: string[] };

/**
 * Everything checked before anything is opened: the configuration (with telemetry's problems),
 * then the probes of startup-check.ts. Never rejects — the process is loading the app's modules
 * meanwhile (kadu-process.ts), and a rejection nobody waits for yet would end it with a trace; an
 * unexpected failure is one line, as kadu-process.ts prints one.
 */
export async function launchChecks(telemetry: TelemetryConfig, env: NodeJS.ProcessEnv): Promise<LaunchChecks> {
  try {
    let config: AppConfig;
    try {
      config = loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return { problems: [...error.problems, ...telemetry.problems] };
      throw error;
    }
    const prometheus = telemetry.metrics.prometheus;
    const problems = [
      ...telemetry.problems,
      ...(await startupProblems(
        config,
        env,
        prometheus ? [{ name: 'OTEL_EXPORTER_PROMETHEUS_PORT', ...prometheus }] : [],
      )),
    ];
    return problems.length ? { problems } : { config, problems: [] };
  } catch (error) {
    return { problems: [describeValue(error).split('\n')[0]!] };
  }
}
