import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import type pretty from 'pino-pretty';

// pino-pretty (30 modules, bench/RESULTS.md, issue 32) is loaded only when the format is pretty:
// a production replica logs JSON and never needs it. It ships CommonJS; its export is the factory.
const require = createRequire(import.meta.url);
let preloaded: typeof pretty | undefined;
const loadPretty = (): typeof pretty => preloaded ?? (require('pino-pretty') as typeof pretty);

/**
 * Loads pino-pretty ahead of `createRootLogger` when the format is pretty, as an `import()`: the
 * production bundle holds it (scripts/bundle.mjs; a `createRequire` call is opaque to the bundler,
 * and ~40 files required from node_modules are compiled afresh on every start), still only for
 * the pretty format. Without it, `createRootLogger` requires pino-pretty itself.
 */
export async function preparePrettyLogs(format: LoggerSettings['format']): Promise<void> {
  if (format !== 'pretty' || preloaded) return;
  preloaded = (await import('pino-pretty')).default;
}

export interface LoggerSettings {
  readonly level: string;
  readonly format: 'json' | 'pretty';
}

/**
 * The process's one log stream: JSON lines in production (LOG_FORMAT=json), readable lines for a
 * person in development. Every line written while a span is active carries its `trace_id` and
 * `span_id`, so logs and traces meet in the collector.
 */
export function createRootLogger(settings: LoggerSettings, destination?: NodeJS.WritableStream): Logger {
  const options: pino.LoggerOptions = {
    level: settings.level,
    base: { service: 'kadu' },
    messageKey: 'msg',
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
    // Nothing in a log line should ever be a credential, whatever a caller passes.
    redact: {
      paths: ['authorization', 'token', 'secret', '*.authorization', '*.token', '*.secret', 'headers'],
      censor: '[redacted]',
    },
  };
  if (settings.format === 'json') return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
  return pino(
    options,
    loadPretty()({
      destination: destination ?? 1,
      sync: true,
      colorize: !destination && process.stdout.isTTY,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service,context',
      messageFormat: '{if context}[{context}] {end}{msg}',
      singleLine: true,
    }),
  );
}
