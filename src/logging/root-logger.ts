import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

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
    pretty({
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
