import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { describeValue } from '@kobana/nest-mcp';

export interface ShutdownParts {
  readonly app: INestApplication;
  readonly logger: Logger;
  /** Whole stop, after which the process exits anyway (KADU_SHUTDOWN_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** First, before the server drains: what keeps connections open on purpose (listen streams) ends. */
  readonly before?: () => void | Promise<void>;
  /** Last: flush telemetry, close the metrics listener. */
  readonly after?: () => Promise<void>;
  readonly exit?: (code: number) => void;
}

/**
 * SIGTERM/SIGINT: stop accepting connections, let the requests in flight finish, then close the
 * app — its worker hands back the execution it was running after the current step, the webhook
 * worker ends its pass, Redis, PostgreSQL and the queue are closed — and exit 0. Whatever hangs
 * (a dependency that does not answer), the process exits 1 when the bound is reached: it always ends.
 */
export function installGracefulShutdown(parts: ShutdownParts): void {
  const exit = parts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    const began = Date.now();
    parts.logger.info(
      { event: 'shutdown.start', signal, timeout_ms: parts.timeoutMs },
      `${signal}: stopping (at most ${parts.timeoutMs} ms)`,
    );
    setTimeout(() => {
      parts.logger.error(
        { event: 'shutdown.timeout', timeout_ms: parts.timeoutMs },
        `stop did not finish within ${parts.timeoutMs} ms: exiting anyway`,
      );
      exit(1);
    }, parts.timeoutMs).unref();
    void Promise.resolve()
      .then(() => parts.before?.())
      .then(() => drain(parts.app.getHttpServer() as Server))
      .then(() => parts.app.close())
      .then(() => parts.after?.())
      .then(
        () => {
          parts.logger.info(
            { event: 'shutdown.done', duration_ms: Date.now() - began },
            `stopped in ${Date.now() - began} ms`,
          );
          exit(0);
        },
        (error: unknown) => {
          parts.logger.error({ event: 'shutdown.failed', err: error }, `stop failed: ${describeValue(error)}`);
          exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Stops accepting and waits for the requests in flight; keep-alive connections close as they go idle. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}
