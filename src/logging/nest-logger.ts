import type { LoggerService } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';
import type { Logger } from 'pino';

/**
 * Nest's `Logger` calls, routed into the pino stream: `context` becomes a field, an object message
 * is merged into the line (audit records keep their own `event` names), an error's stack is a
 * field rather than extra lines.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context) for errors.
    const [stack, ...others] = rest;
    this.write(
      'error',
      message,
      typeof stack === 'string' && stack.includes('\n') ? others : rest,
      typeof stack === 'string' && stack.includes('\n') ? stack : undefined,
    );
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    rest: unknown[],
    stack?: string,
  ): void {
    const last = rest.at(-1);
    const context = typeof last === 'string' ? last : undefined;
    const fields: Record<string, unknown> = { ...(context ? { context } : {}), ...(stack ? { stack } : {}) };
    if (message instanceof Error) this.logger[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.logger[level]({ ...fields, ...(message as object) });
    else this.logger[level](fields, describeValue(message));
  }
}
