import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { McpConfig } from '../mcp-config.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { answerOf, McpRejectionError } from '../errors.js';
import { idOfUnreadRequest } from './early-id.js';
import { exchangeOf } from '../call/exchange.js';
import { requestIdOf } from '../call/request-id.js';
import { sendJson, sendRejection } from './send.js';
import { describeError } from '../protocol/index.js';

/**
 * Writes every failure of the endpoint as the one map (errors.ts) says: ladder rejections as compact
 * JSON-RPC errors, HttpExceptions of the app's own guards (401 challenges, 403) with their body, and
 * anything else as a 500 with `-32603` and no internal detail (rung 16) — the error itself goes to
 * the log with the request id.
 */
@Catch()
@Injectable()
export class McpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('McpEndpoint');

  constructor(
    private readonly config: McpConfig,
    private readonly telemetry: McpTelemetry,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const exchange = exchangeOf(req);
    const answer = answerOf(exception, {
      where: 'endpoint',
      id: exchange.message?.id ?? null,
      errorBody: this.config.errorBody,
      requestId: () => requestIdOf(req, res, this.config.requestId),
    });
    if (answer.kind === 'http') {
      const status = answer.exception.getStatus();
      const body = answer.exception.getResponse();
      sendJson(res, status, JSON.stringify(typeof body === 'string' ? { message: body } : body));
      this.telemetry.finish(req, res, exchange, { httpStatus: status });
      return;
    }
    if (answer.kind !== 'rejection') throw new Error(`unexpected answer ${answer.kind} at the endpoint`);
    const { rejection, cause } = answer;
    if (cause !== undefined) {
      this.logger.error(`request ${requestIdOf(req, res, this.config.requestId)} failed: ${describeError(cause)}`);
      sendRejection(res, rejection);
      this.telemetry.finish(req, res, exchange, { rejection, error: cause });
      return;
    }
    if (
      exception instanceof McpRejectionError &&
      rejection.status === 503 &&
      rejection.id === null &&
      !exchange.message
    ) {
      // Refused before the body was read (the app's guard could not reach its store): name the request anyway.
      void idOfUnreadRequest(req, this.config.bodyLimit).then((id) => sendRejection(res, { ...rejection, id }));
      return;
    }
    sendRejection(res, rejection);
    this.telemetry.finish(req, res, exchange, { rejection });
  }
}
