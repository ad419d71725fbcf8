import type { LoggerService } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';
import type { Logger } from 'pino';

/**
 * Nest's start-up inventory, logged at debug rather than at Nest's `log` level: a line per module
 * initialised, per controller and per route mapped — 101 of the 115 lines a Kadu start wrote at
 * info, and ~40 ms of a replica's start in the readable format (bench/RESULTS.md, issue 32,
 * twenty-fourth pass). The banner says what an operator needs; LOG_LEVEL=debug lists the routes.
 */
const START_UP_INVENTORY: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Nest's `Logger` calls, routed into the pino stream: `context` becomes a field, an object message
 * is merged into the line (audit records keep their own `event` names), an error's stack is a
 * field rather than extra lines.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    this.write(typeof context === 'string' && START_UP_INVENTORY.has(context) ? 'debug' : 'info', message, rest);
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
